/**
 * Generated malformed requests: every case carries at least one defect that must make
 * the service refuse it (bodies, headers, paths, content types, sizes), plus random
 * harmless noise. Deterministic for a seed, so a failure can be replayed.
 * @module
 */
import { badPathCase } from "./bad_paths.ts";
import {
  type BadCase,
  type BadTargets,
  int,
  junkValue,
  pick,
  type R,
  rawBadBody,
  validData,
} from "./bad_util.ts";

/** Field-level defects: each one alone makes the data invalid. */
const FIELD_DEFECTS: ((d: Record<string, unknown>, r: R, t: BadTargets) => void)[] = [
  (d) => delete d.name,
  (d) => delete d.email,
  (d, r) => d.name = pick(r, [42, [], {}, true, "", " ", "x".repeat(51), "Ada 1", "\u0000"]),
  (d, r) => d.email = pick(r, ["a", "@", "a@b", "a b@c.de", 7, ["a@b.cd"], "ada@@example.com"]),
  (d, r) => d.age = pick(r, ["abc", 17, 121, 36.5, [36], { n: 36 }, -0, "1e400", true]),
  (d, r) => d.plan = pick(r, ["gold", "", 1, ["pro"], "PRO"]),
  (d, r) => d.tags = pick(r, ["a", [1], ["zzz"], [{}], { a: 1 }]),
  (d, r) => d.website = pick(r, ["javascript:alert(1)", "not a url", 5, "http://"]),
  (d, r) => d.when = pick(r, ["2024-02-30", "2024-13-01", "yesterday", 20240101, ""]) || "x",
  (d, r, t) =>
    d.cv = pick(r, [
      "file.pdf",
      { path: `${t.formId}/forged.pdf` },
      { path: "../x", originalFilename: "x.pdf", mimeType: "application/pdf", sizeBytes: 1 },
      {
        path: `${t.formId}/never-issued.pdf`,
        originalFilename: "cv.pdf",
        mimeType: "application/pdf",
        sizeBytes: 10,
      },
      [],
    ]),
  (d, r) => d[pick(r, ["__proto__", "constructor", "unknown", "", "x".repeat(300), "🦀"])] = 1,
];

/** A JSON submit body that fails validation or the body schema. */
function badSubmitBody(r: R, t: BadTargets, publicRequest: boolean): string {
  const data = validData();
  const body: Record<string, unknown> = { data };
  switch (int(r, 0, 11)) {
    case 0:
      delete body.data;
      break;
    case 1:
      body.data = pick(r, [null, [], "data", 5, [validData()]]);
      break;
    case 2:
      body[pick(r, ["extra", "__proto__", "Data", "captcha"])] = junkValue(r);
      break;
    case 3:
      body.schema_version = pick(r, [2, 0, -1, "1", 1.5, null]);
      break;
    case 4:
      body.captcha_token = pick(r, [5, {}, [], "x".repeat(10_001)]);
      break;
    case 5:
      body.metadata = pick(r, [[], "m", 5, { big: "m".repeat(int(r, 62_000, 120_000)) }]);
      break;
    case 6:
      body.rendered_at = pick(r, ["now", -5, 1.5, {}]);
      break;
    case 7:
      body.redirect = pick(r, [5, {}, "x".repeat(2001)]);
      break;
    case 8:
      if (publicRequest) {
        data._hp = pick(r, ["filled", "x", 1, ["y"]]);
        break;
      }
    // falls through: a key-authenticated submit skips the honeypot
    default:
      for (let n = int(r, 1, 3); n > 0; n--) pick(r, FIELD_DEFECTS)(data, r, t);
      if (r() < 0.3) data[pick(r, ["name", "email", "plan"])] = junkValue(r);
      // A junk value may happen to be valid: this one never is.
      pick(r, FIELD_DEFECTS.slice(0, 2))(data, r, t);
  }
  return JSON.stringify(body);
}

const NOISE_HEADERS: [string, string][] = [
  ["x-forwarded-for", "999.1.1.1, ::ffff:zz, garbage"],
  ["x-forwarded-for", "2001:db8::1"],
  ["x-request-id", "bad id with spaces"],
  ["user-agent", "U".repeat(8000)],
  ["accept", "*/*;q=bogus"],
  ["cookie", "fw_session=junk; a=b"],
  ["if-none-match", '"v0-junk"'],
  ["x-weird-\u00e9", "v"],
];

function noise(r: R, headers: Record<string, string>): Record<string, string> {
  for (let n = int(r, 0, 2); n > 0; n--) {
    const [k, v] = pick(r, NOISE_HEADERS);
    try {
      new Headers({ [k]: v });
      headers[k] = v;
    } catch {
      // Not a legal header name: the fetch API cannot even send it.
    }
  }
  return headers;
}

/** A header defect on an otherwise valid key-authenticated submit. */
function headerDefect(r: R, t: BadTargets): { headers: Record<string, string>; formId: string } {
  const json = { "content-type": "application/json" };
  const auth = (k: string) => ({ ...json, authorization: `Bearer ${k}` });
  switch (int(r, 0, 7)) {
    case 0:
      return {
        formId: t.formId,
        headers: {
          ...json,
          authorization: pick(r, [
            "Bearer",
            "Bearer x",
            "Basic YWRtaW46YWRtaW4=",
            `Bearer fw_live_${"A".repeat(38)}`,
            `Bearer ${t.keys.submit}x`,
            `bearer  ${t.keys.submit.slice(0, -1)}`,
            `Bearer ${t.keys.revoked}`,
            "",
          ]),
        },
      };
    case 1:
      return { formId: t.formId, headers: auth(t.keys.read) };
    case 2:
      return { formId: t.formId, headers: auth(t.keys.other) };
    case 3:
      return {
        formId: t.formId,
        headers: {
          authorization: `Bearer ${t.keys.submit}`,
          ...(r() < 0.1 ? {} : {
            "content-type": pick(r, [
              "text/plain",
              "application/xml",
              "multipart/form-data",
              "application/jsonx",
              "application/json-patch+json",
              "*/*",
              "",
            ]),
          }),
        },
      };
    case 4:
      return {
        formId: t.formId,
        headers: {
          ...auth(t.keys.submit),
          "idempotency-key": pick(r, ["", "a b", "x".repeat(256), "caf\u00e9", "\t"]),
        },
      };
    case 5:
      return { formId: t.closedFormId, headers: auth(t.keys.submit) };
    case 6:
      return { formId: t.otherFormId, headers: auth(t.keys.submit) };
    default:
      return {
        formId: pick(r, [t.formId, t.captchaFormId]),
        headers: { ...json, origin: pick(r, ["https://evil.example", "null", "ok.example", "x"]) },
      };
  }
}

/** The i-th case of a run (kinds cycle so every run covers all of them). */
export function badCase(r: R, t: BadTargets, i: number): BadCase {
  const submit = (id: string) => `/api/v1/submit/p/${id}`;
  switch (i % 6) {
    case 0: {
      const publicRequest = r() < 0.4;
      const formId = publicRequest ? pick(r, [t.formId, t.captchaFormId]) : t.formId;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (publicRequest) headers.origin = t.origin;
      else headers.authorization = `Bearer ${t.keys.submit}`;
      if (r() < 0.5) headers["idempotency-key"] = `bad-${i}`;
      return {
        kind: "body",
        method: "POST",
        path: submit(formId),
        headers: noise(r, headers),
        body: badSubmitBody(r, t, publicRequest),
      };
    }
    case 1:
      return {
        kind: "raw body",
        method: "POST",
        path: submit(t.formId),
        headers: noise(r, {
          "content-type": pick(r, ["application/json", "application/json; charset=utf-8"]),
          authorization: `Bearer ${t.keys.submit}`,
        }),
        body: rawBadBody(r),
      };
    case 2: {
      const { headers, formId } = headerDefect(r, t);
      return {
        kind: "headers",
        method: "POST",
        path: submit(formId),
        headers: noise(r, headers),
        body: JSON.stringify({ data: validData() }),
      };
    }
    default:
      return badPathCase(r, t);
  }
}
