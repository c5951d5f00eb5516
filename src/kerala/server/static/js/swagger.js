// Starts Swagger UI on the API docs page (/docs, on with KERALA_DOCS): a file, not an inline
// script, so that the page keeps the Content-Security-Policy (docs/security.md).
window.SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
