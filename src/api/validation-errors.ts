import type { FastifyError, FastifyRequest } from 'fastify';
import { HASH_PATTERN } from './schemas/common.js';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (value === null || value === undefined) return 'nil';
  return typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
}

/** The reference's own wording (open_api_spex cast errors), which existing clients match on. */
function detailFor(error: AjvError, value: unknown): { param: string | null; detail: string } {
  const param = error.instancePath.split('/')[1] ?? null;
  switch (error.keyword) {
    case 'additionalProperties':
      return { param: String(error.params.additionalProperty), detail: `Unexpected field: ${String(error.params.additionalProperty)}` };
    case 'pattern':
      return { param, detail: `Invalid format. Expected ~r/${String(error.params.pattern ?? HASH_PATTERN)}/` };
    // (`params.value`: the integer as read from the text, where the check ran before coercion)
    case 'maximum':
      return { param, detail: `${String(error.params.value ?? value)} is larger than inclusive maximum ${String(error.params.limit)}` };
    case 'minimum':
      return { param, detail: `${String(error.params.value ?? value)} is smaller than inclusive minimum ${String(error.params.limit)}` };
    case 'type':
      return { param, detail: `Invalid ${String(error.params.type)}. Got: ${kindOf(value)}` };
    case 'maxLength':
      return { param, detail: `String length is larger than maxLength: ${String(error.params.limit)}` };
    case 'anyOf':
      return {
        param,
        detail: 'Failed to cast value using any of: Schema(type: :string, pattern: ~r/^-?([1-9][0-9]*|0)$/), "", "null"',
      };
    default:
      return { param, detail: error.message ?? 'Invalid value' };
  }
}

export function validationErrorBody(error: FastifyError, request: FastifyRequest) {
  const context = error.validationContext;
  const source = (context === 'params' ? request.params : context === 'body' ? request.body : request.query) as Record<string, unknown> | undefined;
  // anyOf failures list the branches' errors first; the reference leads with the summary.
  const ajvErrors = [...(error.validation as AjvError[])].sort(
    (a, b) => Number(b.keyword === 'anyOf') - Number(a.keyword === 'anyOf'),
  );
  const errors = ajvErrors.map((e) => {
    const paramName = e.instancePath.split('/')[1];
    const { param, detail } = detailFor(e, paramName ? source?.[paramName] : undefined);
    return { title: 'Invalid value', source: { pointer: `/${param ?? ''}` }, detail };
  });
  return { errors };
}
