// Every rule the engine runs. Adding a rule: one file in rules/, one line here, its effects in
// policy.ts, its code in the OpenAPI known values and the README.
import type { Rule } from './rule.js';
import { allowlisted } from './rules/allowlisted.js';
import { blocklisted } from './rules/blocklisted.js';
import { cardProbePattern } from './rules/card-probe-pattern.js';
import { datacenterIp } from './rules/datacenter-ip.js';
import { disposableEmail } from './rules/disposable-email.js';
import { invalidMx } from './rules/invalid-mx.js';
import { malformedEmail } from './rules/malformed-email.js';
import { partialEnrichment, timeoutFailopen } from './rules/meta-findings.js';
import { prepaidCard } from './rules/prepaid-card.js';
import { proxyIp } from './rules/proxy-ip.js';
import { torExit } from './rules/tor-exit.js';
import {
  velocityCardAttempts,
  velocityDeviceSignups,
  velocityDomainSignups,
  velocityIpCardAttempts,
  velocityIpSignups,
} from './rules/velocity-count.js';
import { youngDomain } from './rules/young-domain.js';
import { identityCluster } from './rules/identity-cluster.js';
import { velocityClusterTrials } from './rules/velocity-cluster-trials.js';
import { clusterConfirmedAbuse } from './rules/cluster-confirmed-abuse.js';
import { hubConfirmedAbuse } from './rules/hub-confirmed-abuse.js';
import { clusterTrusted } from './rules/cluster-trusted.js';
import { clusterChargeback } from './rules/cluster-chargeback.js';
import { velocityCardCountries, velocityDistinctCards } from './rules/cluster-cards.js';
import { atoNewDevice } from './rules/ato-new-device.js';
import { atoAccountDeviceBurst } from './rules/ato-account-device-burst.js';
import { testFixture } from './rules/test-fixture.js';

export const defaultRules: readonly Rule[] = [
  blocklisted,
  allowlisted,
  malformedEmail,
  disposableEmail,
  invalidMx,
  youngDomain,
  torExit,
  proxyIp,
  datacenterIp,
  velocityIpSignups,
  velocityDeviceSignups,
  velocityDomainSignups,
  velocityCardAttempts,
  velocityIpCardAttempts,
  cardProbePattern,
  prepaidCard,
  clusterConfirmedAbuse,
  hubConfirmedAbuse,
  identityCluster,
  velocityClusterTrials,
  velocityDistinctCards,
  velocityCardCountries,
  clusterChargeback,
  clusterTrusted,
  atoNewDevice,
  atoAccountDeviceBurst,
  timeoutFailopen,
  partialEnrichment,
  testFixture,
];
