// mbarrier objects and the asynchronous copies that complete on them (issue #16: simpleAWBarrier,
// globalToShmemAsyncCopy): PTX → our sm_90 cubin (SYNCS.*), hazard-checked, lifted and run in the interpreter beside
// the PTX path; the outputs must be the same bytes, and the same as the values the PTX ISA gives.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolchain } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import type { Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { launchOf, PTX_HEAD_SM90, sameAsPtxPath as sameAsPtxPathIn } from './decoded-cubin.test-util.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const ptxasOk = spawnSync('ptxas', ['--version'], { encoding: 'utf8' }).status === 0;

/** ptxas's own sm_90 cubin of the PTX (its SYNCS words, SYNCS.EXCH.64 init through uniform registers included). */
function ptxasCubin(ptx: string): Uint8Array {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mbar-'));
  try {
    writeFileSync(path.join(dir, 'k.ptx'), ptx);
    const r = spawnSync('ptxas', ['-arch=sm_90', '-O3', path.join(dir, 'k.ptx'), '-o', path.join(dir, 'k.cubin')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return readFileSync(path.join(dir, 'k.cubin'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sameAsPtxPath(ptx: string, launch: Launch): { out: Buffer; texts: string[] } {
  const { out, texts } = sameAsPtxPathIn(tc, ptx, launch);
  return { out: Buffer.from(out, 'hex'), texts };
}

const HEAD = PTX_HEAD_SM90;

describe('mbarrier: PTX → sm_90 cubin → lifted run', () => {
  it('arrive / try_wait across warps, the waiting warp first (the scheduler yields on a failed wait)', () => {
    // warp 0 waits (parity 0) for the 32 arrivals of warp 1, which first writes the data warp 0 then reads;
    // then all 64 threads arrive on a second barrier and spin with try_wait on their tokens
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b64 bar[2];
  .shared .align 4 .b32 data[32];
  ld.param.u64 %rd1, [output];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [input];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared.b64 [%r2], 32;
  mbarrier.init.shared.b64 [%r2+8], 64;
INIT_DONE:
  barrier.sync 0;
  and.b32 %r3, %r1, 31;
  shl.b32 %r4, %r3, 2;
  mov.u32 %r5, data;
  add.u32 %r5, %r5, %r4;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra CONSUMER;
  cvt.u64.u32 %rd3, %r4;
  add.u64 %rd3, %rd2, %rd3;
  ld.global.u32 %r6, [%rd3];
  mul.lo.u32 %r6, %r6, 3;
  st.shared.u32 [%r5], %r6;
  mbarrier.arrive.release.cta.shared::cta.b64 %rd4, [%r2];
  bra.uni JOIN;
CONSUMER:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  @!%p3 bra CONSUMER;
  xor.b32 %r7, %r3, 1;
  shl.b32 %r7, %r7, 2;
  mov.u32 %r8, data;
  add.u32 %r8, %r8, %r7;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd5, %rd1, %rd5;
  st.global.u32 [%rd5], %r9;
JOIN:
  mbarrier.arrive.shared.b64 %rd6, [%r2+8];
WAIT2:
  mbarrier.try_wait.shared.b64 %p3, [%r2+8], %rd6;
  @!%p3 bra WAIT2;
  mbarrier.pending_count.b64 %r10, %rd6;
  mul.wide.u32 %rd7, %r1, 4;
  add.u64 %rd7, %rd1, %rd7;
  st.global.u32 [%rd7+256], %r10;
  ld.shared.u64 %rd8, [%r2+8];
  mul.wide.u32 %rd9, %r1, 8;
  add.u64 %rd9, %rd1, %rd9;
  st.global.u64 [%rd9+512], %rd8;
  ret;
}`;
    const input = Buffer.alloc(128);
    for (let k = 0; k < 32; k++) input.writeUInt32LE(k * 7 + 1, 4 * k);
    const { out, texts } = sameAsPtxPath(ptx, launchOf(64, input, 1024));
    for (let k = 0; k < 32; k++) expect(out.readUInt32LE(4 * k)).toBe(((k ^ 1) * 7 + 1) * 3);
    // pending count before each arrival: 64, 63, ... in arrival order (the waiting warp 0 arrives after warp 1)
    const pend = Array.from({ length: 64 }, (_, k) => out.readUInt32LE(256 + 4 * k)).sort((a, b) => a - b);
    expect(pend).toEqual(Array.from({ length: 64 }, (_, k) => k + 1));
    // after the phase completed: phase 1, pending reloaded (64), tx 0, expected 64
    const word = out.readBigUInt64LE(512);
    expect(word).toBe((1n << 63n) | (BigInt(0x100000 - 64) << 43n) | (BigInt(0x100000 - 64) << 1n));
    expect(texts.some((t) => t.startsWith('SYNCS.ARRIVE.TRANS64.A1T0'))).toBe(true);
    expect(texts.some((t) => t.startsWith('SYNCS.PHASECHK.TRANS64.TRYWAIT'))).toBe(true);
  });

  it(`expect_tx / complete_tx, arrive with a count, arrive_drop, test_wait, inval: the state words${ptxasOk ? ', as ptxas\'s cubin gives them' : ''}`, () => {
    // one thread; each step's state word goes to the output (phase | pending | tx | expected as the ISA counts them)
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [output];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [input];
  cvta.to.global.u64 %rd2, %rd2;
  ld.global.u32 %r1, [%rd2];
  mov.u32 %r2, bar;
  mbarrier.init.shared.b64 [%r2], %r1;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 48;
  ld.shared.u64 %rd3, [%r2];
  st.global.u64 [%rd1], %rd3;
  mbarrier.arrive.shared.b64 %rd4, [%r2], 2;
  st.global.u64 [%rd1+8], %rd4;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r2], 16;
  mbarrier.arrive.expect_tx.shared.b64 %rd5, [%r2], 16;
  st.global.u64 [%rd1+16], %rd5;
  mbarrier.test_wait.shared.b64 %p1, [%r2], %rd5;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd1+24], %r3;
  mbarrier.arrive_drop.shared.b64 %rd6, [%r2];
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r2], 48;
  mbarrier.test_wait.shared.b64 %p2, [%r2], %rd5;
  selp.u32 %r4, 1, 0, %p2;
  st.global.u32 [%rd1+28], %r4;
  mbarrier.test_wait.parity.shared.b64 %p3, [%r2], 1;
  selp.u32 %r5, 1, 0, %p3;
  st.global.u32 [%rd1+32], %r5;
  ld.shared.u64 %rd7, [%r2];
  st.global.u64 [%rd1+40], %rd7;
  mbarrier.pending_count.b64 %r6, %rd7;
  st.global.u32 [%rd1+48], %r6;
  mbarrier.inval.shared.b64 [%r2];
  ret;
}`;
    const input = Buffer.alloc(16);
    input.writeUInt32LE(4, 0);
    const launch = launchOf(1, input, 64);
    const { out, texts } = sameAsPtxPath(ptx, launch);
    // ptxas's cubin of the same PTX, lifted: the same state words (its init word, pending_count arithmetic and
    // SYNCS words against our model of the mbarrier word)
    if (ptxasOk) {
      const theirs = runCubin(ptxasCubin(ptx), launch);
      expect(theirs.result.errors).toEqual([]);
      expect(hex(theirs.result.buffers.output!.bytes)).toBe(out.toString('hex'));
    }
    const word = (phase: number, pending: number, tx: number, expected: number): bigint =>
      (BigInt(phase) << 63n) | (BigInt((0x100000 - pending) & 0xfffff) << 43n) | (BigInt(tx & 0x1fffff) << 21n) | (BigInt((0x100000 - expected) & 0xfffff) << 1n);
    expect(out.readBigUInt64LE(0)).toBe(word(0, 4, 48, 4));
    expect(out.readBigUInt64LE(8)).toBe(word(0, 4, 48, 4));
    expect(out.readBigUInt64LE(16)).toBe(word(0, 2, 32, 4));
    expect(out.readUInt32LE(24)).toBe(0);
    // arrive_drop: expected 3, pending 0; complete_tx 48: tx 0 -> the phase completes, pending reloads 3
    expect(out.readUInt32LE(28)).toBe(1);
    expect(out.readUInt32LE(32)).toBe(0);
    expect(out.readBigUInt64LE(40)).toBe(word(1, 3, 0, 3));
    expect(out.readUInt32LE(48)).toBe(3);
    for (const m of ['SYNCS.ARRIVE.TRANS64.RED.A0TX', 'SYNCS.ARRIVE.TRANS64.RED.A0TR', 'SYNCS.ARRIVE.TRANS64.ART0', 'SYNCS.ARRIVE.TRANS64.DROP.A1T0', 'SYNCS.PHASECHK.TRANS64 ', 'SYNCS.CCTL.IV']) {
      expect(texts.some((t) => t.startsWith(m))).toBe(true);
    }
  });

  it('cp.async.bulk global → shared completing on an mbarrier, shared → global in a bulk group, cp.async.mbarrier.arrive.noinc', () => {
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 buf[128];
  ld.param.u64 %rd1, [output];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [input];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  mov.u32 %r3, buf;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [%r2], 33;
  mov.u32 %r4, 64;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2], %r4, [%r2];
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], %r4;
  add.u64 %rd3, %rd2, 64;
  add.u32 %r5, %r3, 64;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd3], 64, [%r2];
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 64;
  cp.async.mbarrier.arrive.noinc.shared.b64 [%r2];
SKIP:
  barrier.sync 0;
  cp.async.mbarrier.arrive.shared.b64 [%r2];
  mbarrier.arrive.shared.b64 %rd4, [%r2];
WAIT:
  mbarrier.try_wait.shared.b64 %p2, [%r2], %rd4;
  @!%p2 bra WAIT;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7];
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd5, %rd1, %rd5;
  st.global.u32 [%rd5], %r8;
  @%p1 bra DONE;
  add.u64 %rd6, %rd1, 128;
  cp.async.bulk.global.shared::cta.bulk_group [%rd6], [buf], 128;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  cp.async.bulk.prefetch.L2.global [%rd2], 128;
DONE:
  ret;
}`;
    const input = Buffer.alloc(128);
    for (let k = 0; k < 32; k++) input.writeUInt32LE(0x01010101 * (k + 1), 4 * k);
    const { out } = sameAsPtxPath(ptx, launchOf(32, input, 256));
    expect(out.subarray(0, 128).equals(input)).toBe(true);
    expect(out.subarray(128).equals(input)).toBe(true);
  });
  it('shared → shared bulk copy, L2 cache hints, fence.proxy.async and fence.mbarrier_init', () => {
    const ptx = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .shared .align 8 .b64 bar[2];
  .shared .align 16 .b8 buf[128];
  ld.param.u64 %rd1, [output];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [input];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r2, bar;
  mov.u32 %r3, buf;
  mbarrier.init.shared.b64 [%r2], 1;
  mbarrier.init.shared.b64 [%r2+8], 1;
  fence.mbarrier_init.release.cluster;
  createpolicy.fractional.L2::evict_last.b64 %rd9, 1.0;
  mbarrier.arrive.expect_tx.shared.b64 %rd4, [%r2], 64;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r3], [%rd2], 64, [%r2], %rd9;
W1:
  mbarrier.try_wait.parity.shared.b64 %p1, [%r2], 0;
  @!%p1 bra W1;
  fence.proxy.async.shared::cta;
  add.u32 %r4, %r3, 64;
  mbarrier.arrive.expect_tx.shared.b64 %rd5, [%r2+8], 64;
  cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r4], [%r3], 64, [%r2+8];
W2:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r2+8], 0;
  @!%p2 bra W2;
  fence.proxy.async;
  cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [%r4], 64, %rd9;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}`;
    const input = Buffer.alloc(64);
    for (let k = 0; k < 64; k++) input[k] = (k * 37 + 11) & 0xff;
    const { out, texts } = sameAsPtxPath(ptx, launchOf(1, input, 64));
    expect(out.equals(input)).toBe(true);
    expect(texts.filter((t) => t.startsWith('FENCE.VIEW.ASYNC.S')).length).toBe(2);
  });
});
