import { defineKnob } from '@ptxforge/kernel';

/**
 * Knobs of the slot-17 handlers (spec: branch/switch, "Phase 14 Vtable Slot 17"). The spec gives them as
 * knob indices / knob-container offsets only, so they are named after what they do; plugin-core registers
 * them with phase 14. Defaults the spec does not state are ours and say so.
 */
export const KNOB_SYNC_RESTRUCTURE_DISABLE = 'SyncPatternRestructureDisable';
export const KNOB_BRANCH_TARGET_SCAN_LIMIT = 'BranchTargetScanLimit';
export const KNOB_NEAR_BRANCH_FORWARD = 'NearBranchMaxForwardInstrs';
export const KNOB_NEAR_BRANCH_BACKWARD = 'NearBranchMaxBackwardInstrs';

export const SLOT17_KNOBS = [
  defineKnob({
    name: KNOB_SYNC_RESTRUCTURE_DISABLE,
    type: 'bool',
    default: false,
    description: 'DoSwitchOptFirst slot-17 handler A (sm60/sm70/sm90+): skip sync-pattern restructuring (spec knob 232)',
  }),
  defineKnob({
    name: KNOB_BRANCH_TARGET_SCAN_LIMIT,
    type: 'int',
    default: 16,
    description: 'DoSwitchOptFirst slot-17 handler A: most retargeting steps per branch operand in the branch-target scan (spec knob 351; value ours)',
  }),
  defineKnob({
    name: KNOB_NEAR_BRANCH_FORWARD,
    type: 'int',
    default: 2047,
    description: 'DoSwitchOptFirst slot-17 handler B (sm80/sm89): a forward branch at most this many instructions away gets the short encoding (knob-container offset 44280; value ours)',
  }),
  defineKnob({
    name: KNOB_NEAR_BRANCH_BACKWARD,
    type: 'int',
    default: 2048,
    description: 'DoSwitchOptFirst slot-17 handler B (sm80/sm89): a backward branch at most this many instructions away gets the short encoding (knob-container offset 44208; value ours)',
  }),
];
