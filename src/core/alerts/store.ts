/**
 * The state store port: where each target's alert state lives between evaluations (a JSON file
 * for the CLI, memory for tests, DynamoDB in the Lambda).
 */
import type { TargetState } from './types.ts';

interface StateStore {
  /** The state saved for `target`, or null when there is none yet. */
  load(target: string): Promise<TargetState | null>;
  /** Replaces the state of `state.target`. */
  save(state: TargetState): Promise<void>;
}

export type { StateStore };
