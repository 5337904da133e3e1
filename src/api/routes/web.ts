import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { PAGE_CSP } from '../plugins/security-headers.js';

/** web/dist beside the package: three levels up from both src/api/routes and dist/api/routes. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../../web/dist/', import.meta.url));


/**
 * The built page at `/`. Files are routed one by one (no catch-all), so unknown paths still
 * reach the API's JSON 404 and no keyed route can be shadowed.
 */
export async function webRoute(app: FastifyInstance, root: string = DEFAULT_WEB_ROOT): Promise<void> {
  await app.register(async (web) => {
    // The page keeps the API key in localStorage: no script, style or frame from anywhere else.
    web.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', PAGE_CSP);
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
