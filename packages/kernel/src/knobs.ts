import { PtxforgeError } from './errors.js';

export type KnobType = 'bool' | 'int' | 'float' | 'double' | 'string';
export type KnobValue = boolean | number | string;

export interface KnobDef {
  readonly name: string;
  readonly type: KnobType;
  readonly default: KnobValue;
  readonly description: string;
  /** Package that registered it (filled by the host). */
  readonly owner?: string;
  /** Numeric knobs: the smallest and largest value accepted (inclusive). */
  readonly min?: number;
  readonly max?: number;
  /** String knobs that are enumerations: the values accepted. */
  readonly choices?: readonly string[];
}

/** Helper for plugin authors: a knob definition with its type checked against the default. */
export function defineKnob<T extends KnobType>(
  def: {
    name: string; type: T; default: T extends 'bool' ? boolean : T extends 'string' ? string : number; description: string;
    min?: number; max?: number; choices?: readonly string[];
  },
): KnobDef {
  return def;
}

/** A value of the knob's JS type outside its range or allowed values: KNOB_OUT_OF_RANGE. */
export function checkKnobRange(def: KnobDef, v: KnobValue, where?: string): void {
  const at = where ? ` (${where})` : '';
  if (typeof v === 'number') {
    if (def.min !== undefined && v < def.min) throw new PtxforgeError('KNOB_OUT_OF_RANGE', `knob ${def.name} must be at least ${def.min}${def.max !== undefined ? ` and at most ${def.max}` : ''}, got ${v}${at}`);
    if (def.max !== undefined && v > def.max) throw new PtxforgeError('KNOB_OUT_OF_RANGE', `knob ${def.name} must be at most ${def.max}${def.min !== undefined ? ` and at least ${def.min}` : ''}, got ${v}${at}`);
    if (def.type === 'int' && !Number.isSafeInteger(v)) throw new PtxforgeError('KNOB_OUT_OF_RANGE', `knob ${def.name} expects an integer, got ${v}${at}`);
  }
  if (typeof v === 'string' && def.choices && !def.choices.includes(v)) {
    throw new PtxforgeError('KNOB_BAD_VALUE', `knob ${def.name} accepts ${def.choices.map((c) => `'${c}'`).join(', ')}, got '${v}'${at}`);
  }
}

/** Parse a knob value written as text (command line, knobs file). */
export function parseKnobValue(def: KnobDef, text: string, where?: string): KnobValue {
  const bad = (): never => {
    throw new PtxforgeError(
      'KNOB_BAD_VALUE',
      `knob ${def.name} expects ${typeDescription(def.type)}, got '${text}'${where ? ` (${where})` : ''}`,
    );
  };
  const t = text.trim();
  switch (def.type) {
    case 'bool':
      if (/^(1|true|on|yes)$/i.test(t)) return true;
      if (/^(0|false|off|no)$/i.test(t)) return false;
      return bad();
    case 'int':
      if (!/^[-+]?(0x[0-9a-f]+|\d+)$/i.test(t)) return bad();
      return Number(t.startsWith('-') ? -BigInt(t.slice(1)) : BigInt(t.replace(/^\+/, '')));
    case 'float':
    case 'double': {
      if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return bad();
      const v = Number(t);
      return def.type === 'float' ? Math.fround(v) : v;
    }
    case 'string':
      return text;
  }
}

function typeDescription(t: KnobType): string {
  return {
    bool: 'a bool (true/false, 1/0, on/off)',
    int: 'an int (decimal or 0x hex)',
    float: 'a float',
    double: 'a double',
    string: 'a string',
  }[t];
}

/** The registry of known knobs (root scope: filled from plugin manifests, then frozen). */
export class KnobRegistry {
  private readonly defs = new Map<string, KnobDef>();

  register(def: KnobDef): void {
    const prev = this.defs.get(def.name);
    if (prev) {
      throw new PtxforgeError(
        'KNOB_NAME_COLLISION',
        `knob ${def.name} is registered by both ${prev.owner ?? '?'} and ${def.owner ?? '?'}`,
        def.owner ? { plugin: def.owner } : {},
      );
    }
    this.defs.set(def.name, Object.freeze({ ...def }));
  }
  get(name: string): KnobDef | undefined {
    return this.defs.get(name);
  }
  all(): KnobDef[] {
    return [...this.defs.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
  /** Look up a knob for a user setting; unknown names are an error with the closest known names. */
  require(name: string, where?: string): KnobDef {
    const d = this.defs.get(name) ?? [...this.defs.values()].find((k) => k.name.toLowerCase() === name.toLowerCase());
    if (d) return d;
    const near = this.all()
      .map((k) => k.name)
      .filter((n) => n.toLowerCase().includes(name.toLowerCase().slice(0, 4)))
      .slice(0, 3);
    throw new PtxforgeError(
      'KNOB_UNKNOWN',
      `unknown knob '${name}'${where ? ` (${where})` : ''}${near.length ? `; did you mean ${near.join(', ')}?` : ''} (--list-knobs lists them)`,
    );
  }
}

/** Knob values of one compilation: defaults overridden by settings. */
export class KnobValues {
  private readonly values = new Map<string, KnobValue>();
  constructor(private readonly registry: KnobRegistry) {}

  set(name: string, value: KnobValue | string, where?: string): void {
    const def = this.registry.require(name, where);
    const v = typeof value === 'string' && def.type !== 'string' ? parseKnobValue(def, value, where) : value;
    if (typeof v !== expectedJsType(def.type)) parseKnobValue(def, String(v), where);
    checkKnobRange(def, v, where);
    this.values.set(def.name, v);
  }
  get<T extends KnobValue>(name: string): T {
    const def = this.registry.require(name);
    return (this.values.has(def.name) ? this.values.get(def.name) : def.default) as T;
  }
  /** Explicitly set knobs (for reports). */
  explicit(): ReadonlyMap<string, KnobValue> {
    return this.values;
  }
}

function expectedJsType(t: KnobType): string {
  return t === 'bool' ? 'boolean' : t === 'string' ? 'string' : 'number';
}

/**
 * Parse a knobs file: a `[knobs]` section of `Name = Value` lines; `#` and `;` start comments.
 * Other sections are an error (they would be silently ignored otherwise).
 */
export function parseKnobsFile(text: string, file: string): Array<{ name: string; value: string; where: string }> {
  const out: Array<{ name: string; value: string; where: string }> = [];
  let section: string | undefined;
  text.split(/\r?\n/).forEach((raw, k) => {
    const line = raw.replace(/\s[#;].*$/, '').replace(/^[#;].*$/, '').trim();
    const where = `${file}:${k + 1}`;
    if (!line) return;
    const sec = /^\[([^\]]+)\]$/.exec(line);
    if (sec) {
      section = sec[1]!.trim();
      if (section !== 'knobs') {
        throw new PtxforgeError('KNOBS_FILE_SECTION', `unknown section [${section}]; knobs go in a [knobs] section`, {
          pos: { file, line: k + 1, col: 1 },
        });
      }
      return;
    }
    if (section !== 'knobs') {
      throw new PtxforgeError('KNOBS_FILE_SECTION', 'knob settings must follow a [knobs] section header', { pos: { file, line: k + 1, col: 1 } });
    }
    const m = /^([A-Za-z_][\w.-]*)\s*=\s*(.*)$/.exec(line);
    if (!m) throw new PtxforgeError('KNOBS_FILE_SYNTAX', `expected 'Name = Value', found '${line}'`, { pos: { file, line: k + 1, col: 1 } });
    out.push({ name: m[1]!, value: m[2]!, where });
  });
  return out;
}
