// A sample CloudEvent for an event type, its data built from the type's JSON Schema (examples, defaults, enums,
// consts and minimums first, then a plain value of the declared type).

export function sampleEvent(type) {
  return {
    specversion: '1.0',
    id: 'sample-' + Math.random().toString(36).slice(2, 10),
    source: '/console/sample',
    type: type.type,
    datacontenttype: 'application/json',
    data: sampleValue(type.schema || {}, 0),
  };
}

/** A value that satisfies simple schemas; nested at most 6 levels deep. */
export function sampleValue(schema, depth) {
  if (!schema || typeof schema !== 'object' || depth > 6) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const choice = schema.oneOf || schema.anyOf;
  if (Array.isArray(choice) && choice.length) return sampleValue(choice[0], depth + 1);
  let type = schema.type;
  if (Array.isArray(type)) type = type.find(t => t !== 'null') || type[0];
  if (!type) type = schema.properties ? 'object' : schema.items ? 'array' : 'object';
  switch (type) {
    case 'object': {
      const out = {};
      const props = schema.properties || {};
      for (const [name, sub] of Object.entries(props)) out[name] = sampleValue(sub, depth + 1);
      return out;
    }
    case 'array': {
      const n = Math.max(1, schema.minItems || 1);
      return Array.from({length: n}, () => sampleValue(schema.items || {}, depth + 1));
    }
    case 'integer':
    case 'number': {
      let v = typeof schema.minimum === 'number' ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
      if (typeof schema.maximum === 'number' && v > schema.maximum) v = schema.maximum;
      return type === 'integer' ? Math.ceil(v) : v;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'uri') return 'https://example.com/';
      const min = schema.minLength || 0;
      const s = 'example';
      return s.length >= min ? s : s.padEnd(min, 'x');
    }
  }
}
