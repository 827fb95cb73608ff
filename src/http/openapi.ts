// TODO(foundation helper): full OpenAPI 3.1 document.
export const openApiDocument = { openapi: '3.1.0', info: { title: 'Local inference server', version: '0.1.0' }, paths: {} };
