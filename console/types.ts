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
  cluster?: { id: string; accounts: number; confirmed_abuse: boolean; confirmed_since_queued_at: string | null };
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
  review: {
    status: string; resolved_at: string | null; resolved_by: string | null; note: string | null;
    marks_retracted: { at: string; by: string; note: string } | null;
  } | null;
  earlier: { by: string | null; events: EventRow[] };
  cluster: ClusterFacts | null | 'unavailable';
}

// Why an event's cluster is what it is: each mark standing on it, with its path and reporter.
export interface Evidence {
  cluster: { id: string; accounts: number } | null;
  marks: {
    feedback_id: string | null; review_event_id?: string; outcome: string; subject_kind: string; subject_value: string | null;
    marked_at: string; via: string[] | null; path: string[] | null; note: string | null; reported_by: string;
  }[];
}
