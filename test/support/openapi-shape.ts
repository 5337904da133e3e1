/**
 * Checks a response against an object schema of the reference's published OpenAPI 3.0
 * description (test/fixtures/reference-api-v2/blockscout-api-v2.yaml), for the operations no
 * recording exists of: every required key sent, every described key with its type (`nullable`
 * allows null). Returns the problems, empty when it conforms.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { jsonType } from './wire-shape.js';

interface OpenApiProperty {
  type?: string;
  nullable?: boolean;
}
interface OpenApiObject {
  required?: string[];
  properties: Record<string, OpenApiProperty>;
}

export function openApiSchemas(file: string): Record<string, OpenApiObject> {
  return (parse(readFileSync(file, 'utf8')) as { components: { schemas: Record<string, OpenApiObject> } }).components.schemas;
}

export function openApiProblems(schema: OpenApiObject, value: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const key of schema.required ?? []) if (!(key in value)) problems.push(`${key}: required, not sent`);
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!(key in value)) continue;
    const type = jsonType(value[key]);
    if (type === 'null') {
      if (!property.nullable) problems.push(`${key}: null, described as non-nullable ${property.type}`);
      continue;
    }
    const described = property.type === 'integer' ? 'number' : property.type;
    if (described !== undefined && described !== type) problems.push(`${key}: ${type}, described as ${property.type}`);
    if (property.type === 'integer' && !Number.isInteger(value[key])) problems.push(`${key}: not an integer`);
  }
  return problems;
}
