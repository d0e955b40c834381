// The shapes /console/api answers with (snake_case, as on the wire).
export interface Me {
  analyst_id: string;
  email: string;
  role: 'analyst' | 'admin';
  tenant_id: string;
  tenant_name: string;
  mode: 'live' | 'test';
  csrf_token: string;
  idle_minutes: number;
}

export interface Reason {
  code: string;
  detail?: Record<string, unknown>;
}

export interface EventRow {
  id: string;
  event_type: string;
  verdict: 'allow' | 'review' | 'block';
  reasons: Reason[];
  policy_version: string;
  created_at: string;
  external_user_id?: string;
  email?: string;
  context?: Record<string, unknown>;
  review?: { status: string; final_verdict?: string; resolved_at?: string };
}

export interface ReviewRow {
  event_id: string;
  event_type: string;
  reasons: Reason[];
  created_at: string;
  age_seconds: number;
  external_user_id?: string;
  email?: string;
}

export interface ClusterFacts {
  id: string;
  accounts: number;
  size: number;
  confirmedAbuse: boolean;
  falsePositive: boolean;
  chargebacks: number;
  suppressed: string[];
  lastTrialStartAt: number | null;
  convertedAt: number | null;
}

export interface EventDetail {
  event: EventRow & { identity: Record<string, string>; payment: Record<string, unknown> | null; ip: string | null; user_agent: string | null };
  signals: Record<string, unknown>;
  review: { status: string; resolved_at: string | null; resolved_by: string | null; note: string | null } | null;
  earlier: { by: string | null; events: EventRow[] };
  cluster: ClusterFacts | null | 'unavailable';
}
