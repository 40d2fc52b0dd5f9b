// ELF notes of a cubin: .note.nv.cuinfo (type 1000) and .note.nv.tkinfo (type 2000), owner "NVIDIA Corp".
import { CubinError } from './errors.js';

export const NT_CUDA_CUINFO = 1000;
export const NT_CUDA_TKINFO = 2000;

export interface ElfNote {
  name: string;
  type: number;
  desc: Uint8Array;
}

/** .note.nv.cuinfo: note version, the virtual SM the PTX targeted (`.target`), CUDA toolkit version * 10. */
export interface CuInfo {
  version: number;
  virtualSm: number;
  /** e.g. 130 for CUDA 13.0. */
  toolkitVersion: number;
}

/** .note.nv.tkinfo: which tool wrote the cubin, with its command-line options. */
export interface TkInfo {
  version: number;
  objectFilename: string;
  toolName: string;
  toolVersion: string;
  toolBranch: string;
  toolOptions: string;
}

const align4 = (n: number) => (n + 3) & ~3;

export function parseNotes(data: Uint8Array, sectionName: string): ElfNote[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out: ElfNote[] = [];
  let i = 0;
  while (i + 12 <= data.length) {
    const namesz = view.getUint32(i, true);
    const descsz = view.getUint32(i + 4, true);
    const type = view.getUint32(i + 8, true);
    const nameStart = i + 12;
    const descStart = nameStart + align4(namesz);
    if (descStart + descsz > data.length) {
      throw new CubinError('CUBIN_MALFORMED', `${sectionName}: note at 0x${i.toString(16)} runs past the section`);
    }
    let nameEnd = nameStart + namesz;
    while (nameEnd > nameStart && data[nameEnd - 1] === 0) nameEnd--;
    out.push({
      name: new TextDecoder().decode(data.subarray(nameStart, nameEnd)),
      type,
      desc: data.subarray(descStart, descStart + descsz),
    });
    i = descStart + align4(descsz);
  }
  return out;
}

export function decodeCuInfo(note: ElfNote): CuInfo | undefined {
  if (note.type !== NT_CUDA_CUINFO || note.desc.length < 8) return undefined;
  const v = new DataView(note.desc.buffer, note.desc.byteOffset, note.desc.byteLength);
  return { version: v.getUint16(0, true), virtualSm: v.getUint16(2, true), toolkitVersion: v.getUint32(4, true) };
}

export function decodeTkInfo(note: ElfNote): TkInfo | undefined {
  if (note.type !== NT_CUDA_TKINFO || note.desc.length < 24) return undefined;
  const d = note.desc;
  const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
  const str = (k: number) => {
    const start = 24 + v.getUint32(4 + 4 * k, true);
    if (start >= d.length) return '';
    let end = start;
    while (end < d.length && d[end] !== 0) end++;
    return new TextDecoder().decode(d.subarray(start, end));
  };
  return {
    version: v.getUint32(0, true),
    objectFilename: str(0),
    toolName: str(1),
    toolVersion: str(2),
    toolBranch: str(3),
    toolOptions: str(4),
  };
}
