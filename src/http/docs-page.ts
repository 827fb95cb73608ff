// TODO(foundation helper): human docs page.
export const docsPage = '<!doctype html><title>API docs</title><p>See <a href="/openapi.json">/openapi.json</a>.</p>';
