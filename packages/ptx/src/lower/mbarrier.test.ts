import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PtxforgeError } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { lowerPtx } from './module.js';
import { parsePtx } from '../parser.js';

const SM90 = { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } };
const kernel = (version: string, target: string, body: string): string => `.version ${version}
.target ${target}
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred p;
  .reg .b32 r<20>;
  .reg .b64 rd<20>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 buf[256];
  mov.u32 r2, bar;
  mov.u32 r9, buf;
  ${body}
  ret;
}
`;

/**
 * The mbarrier family beside ptxas 13.0.88 (`ptxas -arch=<target>`): its verdict and first words, recorded by
 * running it on each case; the last test re-runs them where ptxas is installed.
 */
const CASES: Array<[version: string, target: string, body: string, ptxas: 'ok' | string]> = [
  ['7.0', 'sm_80', 'mbarrier.init.shared.b64 [r2], 4;', 'ok'],
  ['7.0', 'sm_75', 'mbarrier.init.shared.b64 [r2], 4;', "Feature 'mbarrier.init' requires .target sm_80 or higher"],
  ['7.0', 'sm_75', 'mbarrier.pending_count.b64 r1, rd1;', "Feature 'mbarrier.pending_count' requires .target sm_80 or higher"],
  ['7.0', 'sm_75', 'cp.async.mbarrier.arrive.shared.b64 [r2];', "Feature 'cp.async.mbarrier.arrive' requires .target sm_80 or higher"],
  ['7.0', 'sm_80', 'mbarrier.arrive.shared.b64 rd1, [r2];', 'ok'],
  ['7.0', 'sm_80', 'mbarrier.arrive.shared.b64 rd1, [r2], 2;', "Feature 'mbarrier.arrive with count argument and without '.noComplete' modifier' requires .target sm_90 or higher"],
  ['7.0', 'sm_80', 'mbarrier.arrive.shared.b64 _, [r2];', "Result discard mode is not allowed for instruction 'mbarrier.arrive'"],
  ['7.7', 'sm_80', 'mbarrier.arrive.shared.b64 _, [r2];', 'ok'],
  ['7.0', 'sm_80', 'mbarrier.arrive.expect_tx.shared.b64 rd1, [r2], 2;', "Feature 'mbarrier.arrive.expect_tx' requires"],
  ['7.8', 'sm_90', 'mbarrier.arrive.expect_tx.shared.b64 rd1, [r2], 2;', "Feature 'mbarrier.arrive.expect_tx' requires PTX ISA .version 8.0 or later"],
  ['7.8', 'sm_90', 'mbarrier.expect_tx.relaxed.cta.shared.b64 [r2], 2;', "Feature 'mbarrier.expect_tx' requires PTX ISA .version 8.0 or later"],
  ['7.0', 'sm_80', 'mbarrier.test_wait.parity.shared.b64 p, [r2], r1;', "Feature 'mbarrier.test_wait.parity' requires PTX ISA .version 7.1 or later"],
  ['7.7', 'sm_80', 'mbarrier.try_wait.shared.b64 p, [r2], rd1;', "Feature 'mbarrier.try_wait' requires"],
  ['7.8', 'sm_90', 'mbarrier.try_wait.shared.b64 p, [r2], rd1;', 'ok'],
  ['7.8', 'sm_90', 'mbarrier.arrive.release.cta.shared.b64 rd1, [r2];', "Modifier '.release' on 'mbarrier.arrive' requires PTX ISA .version 8.0 or later"],
  ['8.0', 'sm_90', 'mbarrier.arrive.release.cta.shared.b64 rd1, [r2];', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.arrive.release.gpu.shared.b64 rd1, [r2];', "Illegal modifier '.gpu' for instruction 'mbarrier.arrive'"],
  ['8.0', 'sm_90', 'mbarrier.arrive.acquire.cta.shared.b64 rd1, [r2];', "Illegal modifier '.acquire' for instruction 'mbarrier.arrive'"],
  ['8.0', 'sm_90', 'mbarrier.try_wait.release.cta.shared.b64 p, [r2], rd1;', "Illegal modifier '.release' for instruction 'mbarrier.try_wait'"],
  ['8.0', 'sm_90', 'mbarrier.try_wait.relaxed.cluster.shared::cta.b64 p, [r2], rd1;', "Modifier '.relaxed' on 'mbarrier.try_wait' requires PTX ISA .version 8.6 or later"],
  ['8.6', 'sm_90', 'mbarrier.try_wait.relaxed.cluster.shared::cta.b64 p, [r2], rd1;', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.try_wait.acquire.cluster.shared::cta.b64 p, [r2], rd1;', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.init.shared.b32 [r2], 4;', "Unexpected instruction types specified for 'mbarrier.init'"],
  ['8.0', 'sm_90', 'mbarrier.init.shared.b64 [r2], rd1;', "Arguments mismatch for instruction 'mbarrier.init'"],
  ['8.0', 'sm_90', 'mbarrier.arrive.shared.b64 r1, [r2];', "Arguments mismatch for instruction 'mbarrier.arrive'"],
  ['8.0', 'sm_90', 'mbarrier.test_wait.shared.b64 r1, [r2], rd1;', "Arguments mismatch for instruction 'mbarrier.test_wait'"],
  ['8.0', 'sm_90', 'mbarrier.try_wait.parity.shared.b64 p, [r2], rd1;', "Arguments mismatch for instruction 'mbarrier.try_wait.parity'"],
  ['8.0', 'sm_90', 'mbarrier.test_wait.shared.b64 p, [r2], rd1, 1000;', "Arguments mismatch for instruction 'mbarrier.test_wait'"],
  ['8.0', 'sm_90', 'mbarrier.try_wait.shared.b64 p, [r2], rd1, 1000;', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.arrive.global.b64 rd1, [rd2];', "State space incorrect for instruction 'mbarrier.arrive'"],
  ['8.0', 'sm_90', 'mbarrier.arrive.noComplete.shared.b64 rd1, [r2];', "Illegal modifier '.noComplete' for instruction 'mbarrier.arrive without count argument'"],
  ['8.0', 'sm_90', 'mbarrier.arrive.noComplete.shared.b64 rd1, [r2], 1;', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.arrive.shared::cluster.b64 _, [r2];', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.arrive.shared::cluster.b64 rd1, [r2];', "Sink '_' is expected as a destination operand for instruction 'mbarrier.arrive' with '.shared::cluster'"],
  ['8.0', 'sm_90', 'mbarrier.expect_tx.shared.b64 [r2], 4;', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.complete_tx.shared.b64 [r2], 4;', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.arrive_drop.shared.b64 rd1, [r2];', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.pending_count.b64 r1, rd1;', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.inval.shared.b64 [r2];', 'ok'],
  ['8.0', 'sm_90', 'mbarrier.arrive.b64 rd1, [rd2];', 'ok'],
  ['7.8', 'sm_90', 'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [r9], [rd9], 16, [r2];', "Feature 'cp.async.bulk' requires PTX ISA .version 8.0 or later"],
  ['7.7', 'sm_80', 'cp.async.bulk.commit_group;', "Feature 'cp.async.bulk.commit_group' requires .target sm_90 or higher"],
  ['8.0', 'sm_90', 'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [r9], [rd9], 16, [r2];', 'ok'],
  ['8.0', 'sm_90', 'cp.async.bulk.commit_group;', 'ok'],
  ['8.0', 'sm_90', 'cp.async.bulk.wait_group.read 0;', 'ok'],
  ['8.0', 'sm_90', 'cp.async.mbarrier.arrive.noinc.shared.b64 [r2];', 'ok'],
  ['8.0', 'sm_90', 'fence.proxy.async.shared::cta;', 'ok'],
  ['7.8', 'sm_90', 'fence.proxy.async.shared::cta;', "Modifier '.async' requires PTX ISA .version 8.0 or later"],
];

function ours(version: string, target: string, body: string): string {
  try {
    lowerPtx(parsePtx(kernel(version, target, body), 'k.ptx'), { target: { arch: target, capabilities: { paramBase: 0x210 } } });
    return 'ok';
  } catch (e) {
    if (!(e instanceof PtxforgeError)) throw e;
    // every refusal is located at the instruction (line 13 of the kernel above)
    expect(e.pos?.line).toBe(13);
    return e.message;
  }
}

describe('mbarrier and the asynchronous-copy family: the front end gives ptxas 13.0.88 verdicts', () => {
  it.each(CASES)('%s %s %s', (version, target, body, verdict) => {
    const got = ours(version, target, body);
    if (verdict === 'ok') expect(got).toBe('ok');
    else expect(got).toContain(verdict);
  });

  it('lowers each form to its Ori SYNCS form (docs/ori-semantics.md "mbarrier objects")', () => {
    const text = kernel('8.0', 'sm_90', `mbarrier.init.shared.b64 [r2], 4;
  mbarrier.arrive.expect_tx.shared.b64 rd1, [r2], 16;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [r2], 16;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [r2], 16;
  mbarrier.arrive.shared.b64 rd2, [r2], 3;
  mbarrier.arrive_drop.shared.b64 _, [r2];
  mbarrier.try_wait.parity.shared.b64 p, [r2], 1;
  mbarrier.test_wait.shared.b64 p, [r2], rd1;
  mbarrier.inval.shared.b64 [r2];`);
    const m = lowerPtx(parsePtx(text, 'k.ptx'), SM90);
    const ops = m.functions[0]!.blocks.flatMap((b) => b.instrs).filter((i) => i.opcode === 'SYNCS' || i.opcode === 'STS').map((i) => i.fullOpcode);
    expect(ops).toEqual([
      'STS.64', 'SYNCS.ARRIVE.TRANS64', 'SYNCS.ARRIVE.TRANS64.RED.A0TX', 'SYNCS.ARRIVE.TRANS64.RED.A0TR', 'SYNCS.ARRIVE.TRANS64.ART0',
      'SYNCS.ARRIVE.TRANS64.RED.DROP.A1T0', 'SYNCS.PHASECHK.TRANS64.TRYWAIT', 'SYNCS.PHASECHK.TRANS64', 'SYNCS.CCTL.IV',
    ]);
  });
});

const ptxas = (process.env.PATH ?? '').split(':').map((d) => path.join(d, 'ptxas')).find((f) => existsSync(f));
describe.skipIf(!ptxas)('the recorded mbarrier verdicts are still what ptxas says (skipped without ptxas)', () => {
  it('re-runs every case through ptxas', async () => {
    const run = promisify(execFile);
    const dir = mkdtempSync(path.join(tmpdir(), 'mbar-'));
    const wrong: string[] = [];
    for (const [version, target, body, verdict] of CASES) {
      const f = path.join(dir, 'x.ptx');
      writeFileSync(f, kernel(version, target, body));
      let out = 'ok';
      try {
        await run(ptxas!, [`-arch=${target}`, f, '-o', '/dev/null']);
      } catch (e) {
        out = String((e as { stderr?: string }).stderr ?? '');
      }
      if (verdict === 'ok' ? out !== 'ok' : !out.includes(verdict)) wrong.push(`${body}: ${out}`);
    }
    expect(wrong).toEqual([]);
  }, 600000);
});
