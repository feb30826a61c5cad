/**
 * Plans and their limits (CONTRACT "Plans").
 * @module
 */
import { count } from "@/components/count.ts";

/** The plan names, lowest first. */
export const PLAN_NAMES = ["free", "starter", "pro", "business"] as const;
/** A plan name. */
export type PlanName = typeof PLAN_NAMES[number];

/** The limits a plan sets. */
export interface Plan {
  name: PlanName;
  /** Active API keys; 0 means keys are not available. */
  maxActiveKeys: number;
  perFileMB: number;
  storageMB: number;
  analyticsRetentionDays: number;
  /** `null` means unlimited. */
  submissionsPerMonth: number | null;
}

/** The default plan table. */
export const PLANS: Record<PlanName, Plan> = {
  free: {
    name: "free",
    maxActiveKeys: 0,
    perFileMB: 10,
    storageMB: 100,
    analyticsRetentionDays: 30,
    submissionsPerMonth: 1_000,
  },
  starter: {
    name: "starter",
    maxActiveKeys: 2,
    perFileMB: 25,
    storageMB: 1_000,
    analyticsRetentionDays: 90,
    submissionsPerMonth: 10_000,
  },
  pro: {
    name: "pro",
    maxActiveKeys: 10,
    perFileMB: 100,
    storageMB: 10_000,
    analyticsRetentionDays: 365,
    submissionsPerMonth: 100_000,
  },
  business: {
    name: "business",
    maxActiveKeys: 50,
    perFileMB: 500,
    storageMB: 100_000,
    analyticsRetentionDays: 730,
    submissionsPerMonth: null,
  },
};

/** The plan of a name. */
export function planOf(name: PlanName): Plan {
  return PLANS[name];
}

/**
 * A plan's limits in words, for the pages where they apply: "2 API keys · 10,000
 * submissions a month · 25 MB a file · 90 days of analytics" ("no API keys" on Free).
 */
export function planLimits(name: PlanName): string {
  const p = PLANS[name];
  return [
    p.maxActiveKeys ? count(p.maxActiveKeys, "API key") : "no API keys",
    p.submissionsPerMonth === null
      ? "unlimited submissions"
      : `${count(p.submissionsPerMonth, "submission")} a month`,
    `${p.perFileMB} MB a file`,
    `${count(p.analyticsRetentionDays, "day")} of analytics`,
  ].join(" · ");
}

/** Whether a plan includes API keys and the Server Data API (Starter or above). */
export function allowsKeys(name: PlanName): boolean {
  return PLANS[name].maxActiveKeys > 0;
}
