// Requests in, replies out, by the .proto's own field types (as loaded by
// @grpc/proto-loader): on the way in every sint64 field (the raw Q32.32
// values) must be a BigInt, other 64-bit integers (ids, ticks, hashes) a
// BigInt or a safe integer Number, and unknown field names are refused; on
// the way out every 64-bit integer becomes a BigInt.

import { rawOf } from './units.js';

const LONG_TYPES = new Set(['TYPE_INT64', 'TYPE_UINT64', 'TYPE_FIXED64', 'TYPE_SFIXED64']);

export class Wire {
  constructor(packageDefinition, pkg) {
    this.definition = packageDefinition;
    this.pkg = pkg;
  }

  type(name) {
    const bare = name.startsWith('.') ? name.slice(1) : name;
    const found = this.definition[bare] ?? this.definition[`${this.pkg}.${bare}`];
    if (!found) throw new Error(`unknown message type ${name}`);
    return found.type;
  }

  encode(value, typeName, path = '') {
    if (value === undefined || value === null) return value;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new TypeError(`${path || typeName}: expected a ${typeName} object, got ${typeof value}`);
    }
    const type = this.type(typeName);
    const out = {};
    for (const [key, v] of Object.entries(value)) {
      const field = type.field.find((f) => f.name === key);
      const where = path ? `${path}.${key}` : key;
      if (!field) throw new TypeError(`${where}: ${type.name} has no field '${key}'`);
      if (v === undefined || v === null) continue;
      if (field.label === 'LABEL_REPEATED') {
        if (!Array.isArray(v)) throw new TypeError(`${where}: expected an array`);
        out[key] = v.map((item, i) => this.encodeField(item, field, `${where}[${i}]`));
      } else {
        out[key] = this.encodeField(v, field, where);
      }
    }
    return out;
  }

  encodeField(v, field, where) {
    if (field.type === 'TYPE_SINT64') return rawOf(v, where).toString();
    if (LONG_TYPES.has(field.type)) {
      if (typeof v === 'bigint') return v.toString();
      if (Number.isSafeInteger(v)) return String(v);
      throw new TypeError(`${where}: expected a BigInt or a safe integer, got ${typeof v} ${String(v)}`);
    }
    if (field.type === 'TYPE_MESSAGE') return this.encode(v, field.typeName, where);
    return v;
  }

  decode(value, typeName) {
    if (value === undefined || value === null) return value;
    const type = this.type(typeName);
    const out = {};
    for (const [key, v] of Object.entries(value)) {
      const field = type.field.find((f) => f.name === key);
      if (!field || v === null || v === undefined) {
        out[key] = v;
        continue;
      }
      const one = (x) => this.decodeField(x, field);
      out[key] = field.label === 'LABEL_REPEATED' ? v.map(one) : one(v);
    }
    return out;
  }

  decodeField(x, field) {
    if (field.type === 'TYPE_SINT64' || LONG_TYPES.has(field.type)) return BigInt(x);
    if (field.type === 'TYPE_MESSAGE') return this.decode(x, field.typeName);
    return x;
  }
}
