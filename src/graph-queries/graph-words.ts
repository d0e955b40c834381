// The words of this graph (docs/graph.md, "Nodes" and "Relationships"), which the console's
// Cypher editor completes. Fixed by the writer's statements, the same in every tenant.
export const GRAPH_WORDS = {
  labels: ['Account', 'Identifier', 'Email', 'Device', 'Card', 'Event', 'Cluster', 'Feedback', 'Recluster', 'Erasure'],
  relationshipTypes: ['BY', 'USED', 'LINKED', 'IN', 'ON'],
  propertyKeys: [
    'externalId', 'firstSeenAt', 'lastSeenAt', 'history', 'kind', 'value', 'accounts', 'anonymous', 'hub', 'linking', 'id', 'type',
    'at', 'counted', 'card', 'cardCountry', 'size', 'confirmedAbuse', 'abuse', 'falsePositive', 'chargebacks', 'suppressed',
    'lastTrialStartAt', 'convertedAt', 'accountAt', 'cardAt', 'cardValue', 'outcome', 'codes', 'retractedAt', 'expiresAt', 'expiredAt', 'key',
  ],
};
