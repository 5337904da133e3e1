/**
 * The wire contract written out from the spec (sections 2.1–2.6) and COMPATIBILITY.md,
 * independently of the server's own schemas: every response in the suites is checked
 * against it, field for field, with no extra fields allowed.
 */
import { Ajv } from 'ajv';

const str = { type: 'string' };
const nstr = { type: ['string', 'null'] };
const int = { type: 'integer' };
const decimal = { type: 'string', pattern: '^(0|[1-9][0-9]*)$' };
const ndecimal = { type: ['string', 'null'], pattern: '^(0|[1-9][0-9]*)$' };
const checksummed = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' };
const lowerHash32 = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };
const obj = (properties: Record<string, unknown>, optional: string[] = []) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});
const tag = obj({ address_hash: str, display_name: str, label: str });

export const addressSchema = obj({
  hash: checksummed,
  ens_domain_name: nstr,
  name: nstr,
  implementations: { type: 'array', items: obj({ address_hash: checksummed, address: checksummed, name: nstr }) },
  // the reference's older fields, still in its recordings (2024–2025)
  implementation_name: nstr,
  is_contract: { type: 'boolean' },
  is_scam: { type: 'boolean' },
  is_verified: { type: ['boolean', 'null'] },
  metadata: {
    oneOf: [
      { type: 'null' },
      obj({
        tags: {
          type: 'array',
          items: obj({ name: str, slug: str, ordinal: int, tagType: str, meta: { type: 'object', additionalProperties: str } }),
        },
      }),
    ],
  },
  proxy_type: nstr,
  reputation: { enum: ['ok', 'scam'] },
  private_tags: { type: 'array', items: tag },
  public_tags: { type: 'array', items: tag },
  watchlist_names: { type: 'array', items: obj({ display_name: str, label: str }) },
});

// always an object, its members null when there is no such transaction (the reference's arbitrum_view)
const l1tx = obj({ hash: nstr, status: nstr, timestamp: nstr });

export const blockSchema = obj(
  {
    hash: lowerHash32,
    height: int,
    parent_hash: lowerHash32,
    nonce: { type: 'string', pattern: '^0x[0-9a-f]{16}$' },
    timestamp: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$' },
    type: { enum: ['block', 'uncle', 'reorg'] },
    miner: addressSchema,
    size: int,
    difficulty: decimal,
    total_difficulty: ndecimal,
    gas_limit: decimal,
    gas_used: decimal,
    gas_used_percentage: { type: 'number' },
    gas_target_percentage: { type: 'number' },
    base_fee_per_gas: ndecimal,
    burnt_fees: decimal,
    burnt_fees_percentage: { type: ['number', 'null'] },
    priority_fee: decimal,
    transaction_fees: decimal,
    transactions_count: int,
    transaction_count: int,
    tx_count: int,
    tx_fees: decimal,
    internal_transactions_count: { type: ['integer', 'null'] },
    withdrawals_count: { type: ['integer', 'null'] },
    is_pending_update: { type: 'boolean' },
    rewards: { type: 'array', items: obj({ reward: decimal, type: str, address_hash: checksummed }) },
    uncles_hashes: { type: 'array', items: obj({ hash: lowerHash32 }) },
    // EIP-4844 (as the reference's recordings send them on every block)
    blob_gas_used: ndecimal,
    excess_blob_gas: ndecimal,
    blob_transactions_count: { type: ['integer', 'null'], minimum: 0 },
    blob_transaction_count: { type: ['integer', 'null'], minimum: 0 },
    blob_tx_count: { type: ['integer', 'null'], minimum: 0 },
    arbitrum: obj({
      batch_number: { type: ['integer', 'null'] },
      status: nstr,
      batch_data_container: nstr,
      commitment_transaction: l1tx,
      confirmation_transaction: l1tx,
      delayed_messages: { type: ['integer', 'null'] },
      l1_block_number: { type: ['integer', 'null'] },
      l1_block_height: { type: ['integer', 'null'] },
      send_count: { type: ['integer', 'null'] },
      send_root: nstr,
    }),
  },
  ['arbitrum'],
);

/** `GET /blocks/{number or hash}`: the block plus the reference's single-block fields. */
export const singleBlockSchema = {
  ...blockSchema,
  required: [...blockSchema.required, 'blob_gas_price', 'burnt_blob_fees'],
  properties: { ...blockSchema.properties, blob_gas_price: ndecimal, burnt_blob_fees: decimal },
};

export const holdersPageSchema = obj({
  items: { type: 'array', maxItems: 50, items: obj({ address: addressSchema, token_id: ndecimal, value: decimal }) },
  next_page_params: {
    oneOf: [
      { type: 'null' },
      obj(
        {
          address_hash: { type: 'string', pattern: '^0x[0-9a-f]{40}$' },
          items_count: { type: 'integer', minimum: 1, maximum: 50 },
          value: decimal,
          token_id: decimal,
          key: str,
        },
        ['token_id', 'key'],
      ),
    ],
  },
});

export const blocksPageSchema = obj({
  items: { type: 'array', maxItems: 50, items: blockSchema },
  next_page_params: {
    oneOf: [
      { type: 'null' },
      obj({ block_number: { type: 'integer', minimum: 0 }, items_count: { type: 'integer', minimum: 1, maximum: 50 }, key: str }, ['key']),
    ],
  },
});

/** `GET /main-page/blocks`: a bare array of the latest blocks. */
export const latestBlocksSchema = { type: 'array', maxItems: 4, items: blockSchema };

export const messageSchema = obj({ message: str });
/** 404 of the single-block route: "Not found", or "Block lost consensus" with that block's hash */
export const blockNotFoundSchema = obj({ message: { enum: ['Not found', 'Block lost consensus'] }, hash: lowerHash32 }, ['hash']);
export const validationSchema = obj({
  errors: {
    type: 'array',
    minItems: 1,
    items: obj({ title: { const: 'Invalid value' }, source: obj({ pointer: { type: 'string', pattern: '^/' } }), detail: str }),
  },
});

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<object, ReturnType<Ajv['compile']>>();

/** Throws with ajv's explanation when the body does not match. */
export function assertWire(schema: object, body: unknown): void {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  if (!validate(body)) throw new Error(`wire shape mismatch: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}
