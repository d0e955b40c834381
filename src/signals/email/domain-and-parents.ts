// The names a domain list is checked against: the domain itself and each parent down to its
// registrable domain, never the public suffix above it.

// `a.b.example.com` with registrable `example.com` gives [a.b.example.com, b.example.com, example.com].
export function domainAndParents(domain: string, registrableDomain: string): string[] {
  const names = [domain];
  let name = domain;
  while (name !== registrableDomain && name.endsWith(`.${registrableDomain}`)) {
    name = name.slice(name.indexOf('.') + 1);
    names.push(name);
  }
  return names;
}
