import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** web/dist beside the package: three levels up from both src/api/routes and dist/api/routes. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

// The page keeps the API key in localStorage: no script, style or frame from anywhere else.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * The built page at `/`. Files are routed one by one (no catch-all), so unknown paths still
 * reach the API's JSON 404 and no keyed route can be shadowed.
 */
export async function webRoute(app: FastifyInstance, root: string = DEFAULT_WEB_ROOT): Promise<void> {
  await app.register(async (web) => {
    web.addHook('onSend', async (_request, reply) => {
      reply.headers(SECURITY_HEADERS);
    });
    if (!existsSync(join(root, 'index.html'))) {
      // A checkout that skipped the build still starts; the page says how to get it.
      web.get('/', { schema: { hide: true } }, async (_request, reply) =>
        reply.code(503).type('text/plain; charset=utf-8').send('The web page is not built: run `npm run build`.\n'),
      );
      return;
    }
    await web.register(fastifyStatic, {
      root,
      wildcard: false,
      decorateReply: false,
      dotfiles: 'ignore',
      cacheControl: false,
      // Vite names assets by content hash, so they never change; index.html must always revalidate.
      setHeaders: (reply, path) => {
        const hashed = path.includes(`${sep}assets${sep}`);
        reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  });
}
