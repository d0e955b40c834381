// The roles of a console account. An analyst works the review queue and queries the graph; an
// admin may also manage analysts, read the audit log, retract marks and redeliver webhooks.
export type Role = 'analyst' | 'admin';
