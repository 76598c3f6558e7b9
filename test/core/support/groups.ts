/**
 * A group as the monitor's group inbox leaves it: pages handed over one by one (shared by the
 * PagerDuty mapping tests and the forwarder bundle test).
 */
import { addToGroup, type GroupState } from '../../../src/core/alerts/group.ts';
import type { Notification } from '../../../src/core/alerts/types.ts';
import { MAX_GROUP_MEMBERS } from '../../../src/core/constants.ts';

/** The group after `pages` were handed over to it at `now` (as `GroupInbox` does). */
function handOver(group: GroupState | null, pages: readonly Notification[], now: Date): GroupState {
  let next = group;
  for (const page of pages) {
    if (page.group == null) throw new Error(`expected ${page.subject} to join a group, found it on its own`);
    const { fingerprint: fp, status, subject, message, payload } = page;
    next = addToGroup(
      next,
      page.group,
      page,
      { fingerprint: fp, status, subject, message, payload },
      now,
      MAX_GROUP_MEMBERS,
    );
  }
  if (next === null) throw new Error('expected a group, found none');
  return next;
}

export { handOver };
