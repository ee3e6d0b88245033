/**
 * Decodes the protobuf body of a `v1.Secret` create or update. Helm's release storage (client-go's
 * typed clientset) sends Secrets as `application/vnd.kubernetes.protobuf`: the 4-byte magic `k8s\0`
 * and a `runtime.Unknown` (1 typeMeta, 2 raw, 3 contentEncoding, 4 contentType) whose `raw` is a
 * `v1.Secret` (1 metadata, 2 data, 3 type, 4 stringData, 5 immutable). Field numbers from
 * k8s.io/api core/v1 generated.proto and apimachinery runtime/generated.proto. Only the fields
 * Helm sets are read; the rest of ObjectMeta is skipped.
 */
type Field = { number: number; wire: number; value: bigint | Buffer };

function* fields(buffer: Buffer): Generator<Field> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++];
      if (byte === undefined) throw new Error('truncated protobuf varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const wire = key & 7;
    const number = key >>> 3;
    if (wire === 0) yield { number, wire, value: varint() };
    else if (wire === 2) {
      const length = Number(varint());
      yield { number, wire, value: buffer.subarray(at, at + length) };
      at += length;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

const bytes = (field: Field): Buffer => field.value as Buffer;

function mapEntry(entry: Buffer): [string, Buffer] {
  let key = '';
  let value: Buffer = Buffer.alloc(0);
  for (const field of fields(entry)) {
    if (field.number === 1) key = bytes(field).toString('utf8');
    if (field.number === 2) value = bytes(field);
  }
  return [key, value];
}

function objectMeta(buffer: Buffer): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  for (const field of fields(buffer)) {
    if (field.number === 1) meta.name = bytes(field).toString('utf8');
    else if (field.number === 3) meta.namespace = bytes(field).toString('utf8');
    else if (field.number === 6) meta.resourceVersion = bytes(field).toString('utf8');
    else if (field.number === 11) {
      const [key, value] = mapEntry(bytes(field));
      labels[key] = value.toString('utf8');
    } else if (field.number === 12) {
      const [key, value] = mapEntry(bytes(field));
      annotations[key] = value.toString('utf8');
    }
  }
  if (Object.keys(labels).length > 0) meta.labels = labels;
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  return meta;
}

/** The Secret as the JSON object the API server would store (data base64-encoded). */
export function decodeSecretProtobuf(body: Buffer): Record<string, unknown> {
  if (body.subarray(0, 4).toString('latin1') !== 'k8s\0') throw new Error('protobuf body without the k8s magic prefix');
  let raw: Buffer | undefined;
  for (const field of fields(body.subarray(4))) if (field.number === 2) raw = bytes(field);
  if (!raw) throw new Error('protobuf envelope without a raw object');
  const secret: Record<string, unknown> = { apiVersion: 'v1', kind: 'Secret', metadata: {} };
  const data: Record<string, string> = {};
  for (const field of fields(raw)) {
    if (field.number === 1) secret.metadata = objectMeta(bytes(field));
    else if (field.number === 2) {
      const [key, value] = mapEntry(bytes(field));
      data[key] = value.toString('base64');
    } else if (field.number === 3) secret.type = bytes(field).toString('utf8');
    else if (field.number === 5) secret.immutable = field.value === 1n;
  }
  if (Object.keys(data).length > 0) secret.data = data;
  return secret;
}
