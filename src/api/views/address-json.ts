import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { AddressObject } from '../schemas/address.js';
import type { PageAddress } from './address.js';

const fieldsJson = fastJson(Type.Omit(AddressObject, ['metadata', 'public_tags']));

/**
 * A page's address object as JSON: its schema's serializer for the fields, then the tags as the
 * database keeps them. What a labelled row adds to a page is then a string the database already
 * holds, not a parse and a render per request.
 */
export function addressJson(a: PageAddress): string {
  return `${fieldsJson(a).slice(0, -1)},${a.tagsJson}}`;
}
