/** A reference page for the API, rendered on the server: no scripts, no CDN. */
export function renderDocsPage(document: Record<string, unknown>): string {
  const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  const sections: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = (operation.parameters as Array<{ name: string; in: string; required: boolean; schema: unknown }>) ?? [];
      const body = (operation.requestBody as { content: { 'application/json': { schema: unknown } } } | undefined)?.content[
        'application/json'
      ].schema;
      const response = (operation.responses as Record<string, { content?: { 'application/json': { schema: unknown } } }>)['200']?.content?.[
        'application/json'
      ].schema;
      sections.push(`<section id="${escapeHtml(`${method}-${path}`)}">
<h2><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h2>
<p>${escapeHtml(String(operation.summary ?? ''))}${Array.isArray(operation.security) ? ' <em>(public)</em>' : ''}</p>
${parameters.length ? `<h3>Parameters</h3><ul>${parameters.map((p) => `<li><code>${escapeHtml(p.name)}</code> (${p.in}${p.required ? ', required' : ''}): <code>${escapeHtml(JSON.stringify(p.schema))}</code></li>`).join('')}</ul>` : ''}
${body ? `<h3>Body</h3><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre>` : ''}
${response ? `<details><summary>Response</summary><pre>${escapeHtml(JSON.stringify(response, null, 2))}</pre></details>` : ''}
</section>`);
    }
  }
  const info = document.info as { title: string; version: string; description: string };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(info.title)} API reference</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,sans-serif}body{max-width:60rem;margin:auto;padding:1rem;line-height:1.5}
pre{overflow:auto;padding:.5rem;border:1px solid #8884;border-radius:4px;font-size:.85rem}section{border-top:1px solid #8884;padding:.5rem 0}
.method{display:inline-block;min-width:4rem;font-size:.8rem;padding:.1rem .4rem;border-radius:4px;background:#2563eb;color:#fff;text-align:center}
.method.post{background:#16a34a}.method.delete{background:#dc2626}h2{font-size:1.05rem}
</style></head><body>
<h1>${escapeHtml(info.title)} API <small>${escapeHtml(info.version)}</small></h1>
<p>${escapeHtml(info.description)}</p><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
${sections.join('\n')}
</body></html>`;
}
