/**
 * The forwarder's log lines a person or an alarm looks for: written by the forwarder
 * (./forward.ts) and matched by the stack's metric filter (infra/constructs/pagerDuty.ts), so
 * both import them from here rather than the stack importing the forwarder. The filter matches
 * `keyRefused`.
 */
const LOG_MESSAGES = {
  refused: 'refused a message that is not an alert message',
  keyRefused: 'PagerDuty routing key missing or refused',
  dropped: 'dropped an event older than one accepted',
  noIncident: 'dropped a resolve for a dedup_key with no open incident',
  coalesced: 'coalesced alerts of a group into its overflow incident',
  lateTrigger: 'closed again an incident a late trigger opened after its resolve',
  openerKeyLost: 'could not read the routing key an open incident was opened with: sent to the current key',
} as const;

export { LOG_MESSAGES };
