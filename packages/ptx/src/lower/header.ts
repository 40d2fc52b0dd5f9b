import { PtxforgeError } from '@ptxforge/kernel';
import type { Pos, PtxModule } from '../ast.js';

/**
 * The oldest PTX ISA version that knows each `.target` (PTX ISA "Release notes" table, cross-checked with
 * ptxas 13.0.88: it rejects `.version 7.7` with `.target sm_90` as "PTX .version 7.7 does not support .target
 * sm_90"). sm_1x/sm_2x are listed at 2.3 because ptxas 13 takes nothing older with `.address_size 64`.
 */
const TARGET_MIN_VERSION: ReadonlyMap<string, string> = new Map([
  ['sm_10', '1.0'], ['sm_11', '1.0'], ['sm_12', '1.2'], ['sm_13', '1.2'], ['sm_20', '2.0'], ['sm_21', '2.0'],
  ['sm_30', '3.0'], ['sm_32', '4.0'], ['sm_35', '3.1'], ['sm_37', '4.1'], ['sm_50', '4.0'], ['sm_52', '4.1'],
  ['sm_53', '4.2'], ['sm_60', '5.0'], ['sm_61', '5.0'], ['sm_62', '5.0'], ['sm_70', '6.0'], ['sm_72', '6.1'],
  ['sm_75', '6.3'], ['sm_80', '7.0'], ['sm_86', '7.1'], ['sm_87', '7.4'], ['sm_88', '7.3'], ['sm_89', '7.8'],
  ['sm_90', '7.8'], ['sm_90a', '8.0'], ['sm_100', '8.6'], ['sm_100a', '8.6'], ['sm_100f', '8.8'], ['sm_101', '8.6'],
  ['sm_103', '8.8'], ['sm_103a', '8.8'], ['sm_103f', '8.8'], ['sm_110', '9.0'], ['sm_110a', '9.0'], ['sm_110f', '9.0'],
  ['sm_120', '8.7'], ['sm_120a', '8.7'], ['sm_120f', '8.8'], ['sm_121', '8.8'], ['sm_121a', '8.8'], ['sm_121f', '8.8'],
]);

/** The newest PTX ISA version ptxas 13.0 reads. */
export const NEWEST_PTX_VERSION = '9.0';

const TARGET_OPTIONS = new Set(['texmode_unified', 'texmode_independent', 'debug']);

/** `8.0` -> 800 (major * 100 + minor). */
export function versionNumber(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)\.(\d+)$/.exec(v);
  return m ? Number(m[1]) * 100 + Number(m[2]) : undefined;
}

/** `sm_90a` -> { n: 90, suffix: 'a' }; `compute_90` reads like `sm_90`. */
function parseSm(name: string): { n: number; suffix: string; canonical: string } | undefined {
  const m = /^(?:sm|compute)_(\d+)([af]?)$/.exec(name);
  return m ? { n: Number(m[1]), suffix: m[2]!, canonical: `sm_${m[1]}${m[2]}` } : undefined;
}

/**
 * Check the module header against ptxas's rules and the -arch we compile for: the PTX version is one ptxas
 * reads, the `.target` is a known architecture the version supports, no higher than -arch (an `a` target
 * only for exactly that architecture), and addressing is 64-bit (ptxas 13 dropped 32-bit compilation).
 * A missing `.address_size` is accepted, as ptxas 13 does. Errors are located at the offending directive.
 */
export function checkModuleHeader(ast: PtxModule, arch: string): void {
  const fail = (code: string, msg: string, pos: Pos | undefined): never => {
    throw new PtxforgeError(code, msg, { pos: { file: ast.file, line: pos?.line ?? 1, col: pos?.col ?? 1 } });
  };
  const version = ast.version ?? '';
  const vnum = versionNumber(version);
  if (vnum === undefined) fail('PTX_UNSUPPORTED_VERSION', `malformed .version '${version}' (expected MAJOR.MINOR like 8.0)`, ast.versionPos);
  if (vnum! > versionNumber(NEWEST_PTX_VERSION)!) fail('PTX_UNSUPPORTED_VERSION', `Unsupported .version ${version}; current version is '${NEWEST_PTX_VERSION}'`, ast.versionPos);

  let sm: ReturnType<typeof parseSm>;
  for (const t of ast.target) {
    if (TARGET_OPTIONS.has(t)) continue;
    if (t === 'map_f64_to_f32') fail('PTX_TARGET_UNSUPPORTED', 'Directive map_f64_to_f32 is not supported with SM 1.3 or higher', ast.targetPos);
    const p = parseSm(t);
    if (!p || !TARGET_MIN_VERSION.has(p.canonical)) fail('PTX_TARGET_UNSUPPORTED', `Unsupported .target '${t}'`, ast.targetPos);
    sm ??= p;
  }
  if (!sm) fail('PTX_TARGET_UNSUPPORTED', `Target architecture not defined at start of file '${ast.file}'`, ast.targetPos);
  const need = TARGET_MIN_VERSION.get(sm!.canonical)!;
  if (vnum! < versionNumber(need)!) fail('PTX_VERSION_TARGET', `PTX .version ${version} does not support .target ${sm!.canonical} (needs .version ${need} or newer)`, ast.targetPos);

  const a = parseSm(arch);
  if (a) {
    if (sm!.suffix === 'a' && (a.n !== sm!.n || a.suffix !== 'a')) {
      fail('PTX_TARGET_ARCH', `PTX with .target '${sm!.canonical}' cannot be compiled for architecture '${arch}'`, ast.targetPos);
    }
    if (sm!.suffix === 'f' && (Math.floor(a.n / 10) !== Math.floor(sm!.n / 10) || a.n < sm!.n)) {
      fail('PTX_TARGET_ARCH', `PTX with .target '${sm!.canonical}' cannot be compiled for architecture '${arch}'`, ast.targetPos);
    }
    if (sm!.n > a.n) fail('PTX_TARGET_ARCH', `SM version specified by .target (${sm!.canonical}) is higher than the architecture compiled for (-arch ${arch})`, ast.targetPos);
  }
  if (ast.addressSize === 32) {
    fail('PTX_ADDRESS_SIZE_32', '.address_size 32: 32-bit compilation is no longer supported (ptxas 13 rejects the 32-bit ABI); use .address_size 64', ast.addressSizePos);
  }
}
