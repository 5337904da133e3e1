import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.js';
import { adminAuth } from '../plugins/admin-auth.js';
import { parameterLimits } from '../plugins/parameter-limits.js';
import { rateLimitPlugin, type RateLimitOptions } from '../plugins/rate-limit.js';
import { adminKeysRoutes } from './admin-keys.js';
import { adminLabelsRoutes } from './admin-labels.js';

/**
 * The operator's scope, `/api/v2/admin/…`: every request spends its client address's budget,
 * then must carry a key of EXPLORER_ADMIN_KEYS (plugins/admin-auth.ts), never an API key; its
 * values are bounded and its integers decimal text, as in the keyed scope (plugins/parameter-limits.ts).
 * Labels and keys each get a scope of their own inside it (labels read their bodies as text).
 */
export async function adminRoutes(app: FastifyInstance, db: Database, options: { adminKeys: readonly string[] } & RateLimitOptions): Promise<void> {
  await app.register(async (admin) => {
    await admin.register(rateLimitPlugin, options);
    adminAuth(admin, options.adminKeys);
    parameterLimits(admin);
    await admin.register(async (scope) => adminLabelsRoutes(scope, db));
    await admin.register(async (scope) => adminKeysRoutes(scope, db));
  });
}
