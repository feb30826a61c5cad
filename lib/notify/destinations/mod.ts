/**
 * One delivery's request and the meaning of its answer, by the endpoint's format: the
 * standard format's signed body, or a destination's service message (unsigned: its URL is
 * its credential).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { eventBody, type NotifyEvent } from "../events.ts";
import type { PostResult } from "../http1.ts";
import { signedHeaders } from "../signing.ts";
import type { Webhook } from "../webhooks.ts";
import { type Answer, standardAnswer } from "./answer.ts";
import { discordAnswer, discordBody } from "./discord.ts";
import { messageOf } from "./message.ts";
import { slackAnswer, slackBody } from "./slack.ts";
import { teamsAnswer, teamsBody } from "./teams.ts";

export type { Answer } from "./answer.ts";

/** What one attempt POSTs. */
export interface Outgoing {
  body: string;
  headers: Record<string, string>;
}

const RENDER = { slack: slackBody, discord: discordBody, teams: teamsBody };
const ANSWER = {
  standard: standardAnswer,
  slack: slackAnswer,
  discord: discordAnswer,
  teams: teamsAnswer,
};

/** The request of one attempt of `event` to `w`, at `now`. */
export function outgoing(
  deps: Pick<Deps, "config">,
  w: Webhook,
  event: NotifyEvent,
  now: number,
): Outgoing {
  const format = w.format;
  if (format === "standard") {
    const body = eventBody(event);
    return { body, headers: signedHeaders(w, event.id, body, now) };
  }
  return {
    body: RENDER[format](messageOf(deps, event)),
    headers: { "Content-Type": "application/json", "User-Agent": "Formwell-Webhooks/1" },
  };
}

/** What `w`'s service meant by its answer `r`. */
export function answerOf(w: Webhook, r: PostResult, now: number): Answer {
  return ANSWER[w.format](r, now);
}
