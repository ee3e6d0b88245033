import { defineErrorCodes } from '../../core/errors/index.ts';

/** Error codes of the helm agent. Messages say what to do next. */
export const HelmErrors = defineErrorCodes({
  HELM_RELEASE_NOT_FOUND: {
    status: 404,
    message: 'release: not found ({release} in namespace {namespace}). Install it first, or check the name and namespace.',
  },
  HELM_CLUSTER_UNREACHABLE: {
    status: 503,
    message: 'Kubernetes cluster unreachable: {detail}. Nothing was changed; check the kubeconfig context and network, then try again.',
  },
  HELM_FORBIDDEN: {
    status: 403,
    message: 'The cluster refused the request: {detail}. Nothing was changed; ask a cluster admin for the needed RBAC rights.',
  },
  HELM_RELEASE_STORAGE_FORBIDDEN: {
    status: 403,
    message:
      "The cluster refused to let Helm read or record the release {release}: {detail}. Helm stores releases as Secrets in the release namespace and stopped before applying the chart: no revision was recorded and no release object changed (only a namespace made by createNamespace, or the chart's CRDs, may already exist). Ask a cluster admin for get/list/create/update on Secrets in that namespace.",
  },
  HELM_RELEASE_PENDING: {
    status: 409,
    message:
      'Release {release} is stuck in {status} (revision {revision}); another operation may be running or was interrupted. The workflow stopped; {remedy}',
  },
  HELM_OPERATION_IN_PROGRESS: {
    status: 409,
    message:
      'Release {release}: another operation (install/upgrade/rollback) is in progress. Nothing was run; wait for it to finish, or read the history and roll back if it was interrupted.',
  },
  HELM_NO_DEPLOYED_RELEASES: {
    status: 409,
    message:
      '"{release}" has no deployed releases: its last revision is uninstalled, so it cannot be upgraded. Install it again (opsgate plans an install that replaces the uninstalled release).',
  },
  HELM_APPLY_FAILED: {
    status: 502,
    message:
      'helm {operation} of {release} failed while changing the cluster: {detail}. Helm has recorded the new revision as failed and some objects may have changed; read the release history (helm_get_release_status) before retrying or rolling back.',
  },
  HELM_TIMEOUT: {
    status: 504,
    message:
      'helm {operation} of {release} timed out waiting for its resources: {detail}. Helm recorded the revision as failed; read the release status and pod health, then roll back or retry with a longer timeout.',
  },
  HELM_OBJECTS_INVALID: {
    status: 422,
    message:
      'The cluster refuses {count} of the rendered objects in a server-side dry run with strict field validation: {detail}. Nothing was changed and there is no plan to approve; fix the values (or the chart) and plan again.',
  },
  HELM_TIMEOUT_OVER_LIMIT: {
    status: 422,
    message:
      'A timeout of {requested} seconds is outside what this server allows ({min} to {max} seconds). Ask for a timeout in that range, or leave it out to get the default from the chart size; an admin sets the limit (agentOptions.helm.maxTimeoutSeconds or OPSGATE_HELM_MAX_TIMEOUT_SECONDS).',
  },
  HELM_NAME_IN_USE: {
    status: 409,
    message: 'cannot re-use a name that is still in use: {release} in namespace {namespace}. Upgrade it instead, or pick another name.',
  },
  HELM_CHART_NOT_FOUND: {
    status: 404,
    message:
      'Chart {chart}{version} is not in the repository. Search the repository (helm_search_charts) for available charts and versions.',
  },
  HELM_CHART_SOURCE_UNKNOWN: {
    status: 404,
    message:
      "The chart {chart} of release {release} is not in opsgate's repository{searched}. Give the chart's source as the chart reference: REPO/NAME for a `helm repo` repository, or oci://REGISTRY/PATH/NAME for an OCI registry.",
  },
  HELM_CHART_SOURCE_AMBIGUOUS: {
    status: 409,
    message:
      'The chart {chart} of release {release} is in several `helm repo` repositories ({candidates}). Give the one it came from as the chart reference.',
  },
  HELM_CHART_SOURCE_CHANGED: {
    status: 409,
    message:
      'Release {release} was installed from {recorded}; the upgrade would take chart {chart} from {source}, another source, which could swap an in-house chart for a namesake. Nothing was planned; name the chart the release came from, or set allowSourceChange to plan the switch (the approver sees it).',
  },
  HELM_CHART_SOURCE_MISMATCH: {
    status: 409,
    message:
      'Release {release} runs chart {chart} with appVersion "{running}", but the chart of that name and version at {source} has appVersion "{found}": it is another chart. Nothing was planned; name the source the release came from (REPO/NAME or oci://…).',
  },
  HELM_NO_CHART_REPOSITORY: {
    status: 404,
    message:
      "Chart {chart} names no source, and the helm CLI backend has no chart repository of opsgate's (the demo charts exist only with the simulator). Name the chart's source: REPO/NAME of a `helm repo` repository or oci://REGISTRY/PATH/NAME, or configure a repository folder (agentOptions.helm.charts).",
  },
  HELM_VALUES_FILE_INVALID: {
    status: 400,
    message:
      'Values input {name} cannot be used: {detail}. Nothing was planned; correct it (a values file is YAML with a mapping at the top, as for `helm -f`) and ask again.',
  },
  HELM_CHART_SOURCE_UNSUPPORTED: {
    status: 400,
    message:
      "Chart reference {chart} names a `helm repo` repository or an OCI registry, which only the helm CLI backend can read (OPSGATE_HELM_BACKEND=cli). With the simulator, use a chart of opsgate's repository ({repository}).",
  },
  HELM_CHART_PULL_FAILED: {
    status: 502,
    message:
      '`helm pull {chart}` failed: {detail}. Check the reference and version; for a `helm repo` repository run `helm repo update`, for a private OCI registry `helm registry login`.',
  },
  HELM_NO_STABLE_VERSION: {
    status: 404,
    message:
      'Chart {chart} has only prereleases (newest {newest}), and Helm picks a prerelease only when asked. Give the version, or the range ">0.0.0-0" (what helm --devel uses).',
  },
  HELM_REPOSITORY_INDEX_INVALID: {
    status: 422,
    message: 'The repository index {source} cannot be read: {detail}. Regenerate it with `helm repo index` and open the repository again.',
  },
  HELM_CHART_DOWNLOAD_FAILED: {
    status: 502,
    message:
      'Downloading chart {chart} from {url} failed: {detail}. Nothing was changed; check that the repository serves this url, then try again.',
  },
  HELM_CHART_INVALID: {
    status: 422,
    message: 'Chart {chart} is invalid: {detail}. Fix the chart archive and rebuild the repository index.',
  },
  HELM_CHART_NOT_INSTALLABLE: {
    status: 422,
    message:
      '{type} charts are not installable: {chart} only lends templates to the charts that depend on it. Install a chart that lists it under dependencies instead.',
  },
  HELM_VALUES_INVALID: {
    status: 422,
    message: 'The values do not match the chart schema ({count} errors): {detail}. Change these values and plan again.',
  },
  HELM_RENDER_FAILED: { status: 422, message: 'Rendering {template} failed: {detail}. Check the values the template uses.' },
  HELM_PLAN_STALE: {
    status: 409,
    message:
      'The plan changed since it was approved (approved {expected}, now {actual}): the values or the cluster changed. Nothing was run; go back to planning and ask for approval of the new plan.',
  },
  HELM_VERSION_CONSTRAINT_INVALID: {
    status: 422,
    message:
      'The version constraint "{constraint}" for {chart} is not valid (Helm reads versions with Masterminds semver: e.g. "1.2.3", "~1.2", "^1", ">=1.2.0, <2.0.0", "1.2 - 1.4"). Give an exact version or a valid range.',
  },
  HELM_PREREQUISITES_FAILED: { status: 422, message: 'Prerequisites not met: {detail}. Pick a chart version that supports this cluster.' },
  HELM_OPERATION_FAILED: {
    status: 502,
    message: 'helm {operation} failed: {detail}. Check the release status and history before retrying.',
  },
  HELM_CHART_UNVERIFIED: {
    status: 422,
    message:
      "Chart archive {archive} has no valid provenance for the configured keyring: {detail}. Nothing was planned; publish the chart with its signed .prov file (helm package --sign) by a key in the keyring, or ask an admin to add the signer's public key.",
  },
  HELM_CHANGE_ROLLED_BACK: {
    status: 502,
    message:
      "helm {operation} of {release} failed and was undone as the plan asked ({undone}): {detail}. Nothing of the change is left running; find the cause (the detail, the workloads' events) and plan again.",
  },
  HELM_REVISION_NOT_FOUND: {
    status: 404,
    message: 'Release {release} has no revision {revision}. Read its history (helm_get_release_status) and pick an existing revision.',
  },
  HELM_BAD_OUTPUT: {
    status: 502,
    message: 'Could not parse the output of `helm {command}`: {detail}. Check the helm version (Helm 3.13 or newer is required).',
  },
  HELM_VERSION_UNSUPPORTED: {
    status: 502,
    message:
      'opsgate needs Helm 3.13 or newer (it uses `helm get metadata` and `--dry-run=server`, both new in 3.13.0); the helm found is {version}. Install a newer helm, or point OPSGATE_HELM_PATH at one.',
  },
  HELM_MCP_ERROR: { status: 502, message: 'The Helm MCP server answered {tool} with an error: {detail}' },
  HELM_CLUSTER_UNKNOWN: {
    status: 404,
    message:
      'Cluster "{cluster}" is not a registered target: {detail}. Nothing was run; name one of the registered clusters (an admin registers one with `opsgate helm-clusters add`).',
  },
  HELM_NAMESPACE_NOT_ALLOWED: {
    status: 403,
    message:
      'Namespace "{namespace}" is not on the allow-list of cluster "{cluster}" ({allowed}). Nothing was run; use an allowed namespace, or ask an admin to re-register the cluster with this namespace.',
  },
  HELM_CLUSTER_INPUT_INVALID: {
    status: 400,
    message: 'Invalid cluster registration: {detail} Nothing was stored; correct it and register the cluster again.',
  },
  HELM_CLUSTER_EXISTS: {
    status: 409,
    message: 'Cluster "{cluster}" is already registered. Remove it first (`opsgate helm-clusters remove {cluster}`) to change it.',
  },
  HELM_APPROVAL_REQUIRED: {
    status: 403,
    message:
      '{tool} changes the cluster and arrived without an approval. It was not run; propose it so that a person can approve the plan.',
  },
});
