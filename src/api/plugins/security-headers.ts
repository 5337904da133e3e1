import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Headers every answer carries: JSON, errors, /health, /metrics, /docs and the web page. A
 * browser must not sniff a JSON body into HTML, frame any of it, or send our URLs (keys are in
 * them) as a Referer elsewhere. The content policy here allows nothing, which is right for
 * data; the two HTML pages replace it with their own (`PAGE_CSP`). HSTS is left to the TLS
 * proxy in front: over plain HTTP browsers ignore it.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/**
 * For the HTML pages (`/` and `/docs`): scripts, styles and images from this origin only, no
 * inline code (neither page has any), requests only back to this origin.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * /docs: the page policy, plus the one inline style the Swagger UI bundle applies (its hash, as
 * Chromium reports it; test/web/page.test.ts fails on any blocked resource, so an upgrade of
 * @fastify/swagger-ui that changes it is seen at once).
 */
export const DOCS_CSP = PAGE_CSP.replace(
  "style-src 'self'",
  "style-src 'self' 'unsafe-hashes' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
);

/** The keyed API's answers belong to one key holder: no shared or browser cache keeps them. */
export const KEYED_HEADERS: Readonly<Record<string, string>> = { 'cache-control': 'no-store' };

export function setSecurityHeaders(reply: FastifyReply): void {
  reply.headers(SECURITY_HEADERS);
}

/**
 * On every request, first thing: whatever answers later (an error, a 404, a 429) keeps them.
 * A callback hook, not an async one: it is on the cached-page path.
 */
export const securityHeaders = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (_request, reply, done) => {
    setSecurityHeaders(reply);
    done();
  });
});
