// Where each thing the console names leads.
export const accountHref = (id: string): string => `/console/accounts/${encodeURIComponent(id)}`;
