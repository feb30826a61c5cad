/**
 * Malformed requests to every other surface: junk paths and methods, the Server Data
 * API with junk ids, queries and delete bodies, events, validate, upload-url, the local
 * storage routes, the admin sign-in and the no-JS (urlencoded) submit. Each carries a
 * defect that must make it change nothing.
 * @module
 */
import {
  type BadCase,
  type BadTargets,
  int,
  junkString,
  junkValue,
  pick,
  type R,
  rawBadBody,
  validData,
} from "./bad_util.ts";

/** Percent-encodes; a lone surrogate becomes the (invalid UTF-8) bytes it would be. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.toWellFormed()) + "%ED%A0%80";
  }
}

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];

function junkSegment(r: R): string {
  return pick(r, [
    "..",
    "%2e%2e",
    "%00",
    "%zz",
    "%F0%9F%A6%80",
    enc(junkString(r).slice(0, 200)),
    "x".repeat(int(r, 1, 3000)),
    "f" + "A".repeat(12),
    "sub_" + "0".repeat(26),
    ";",
    "~",
  ]) || "-";
}

function junkQuery(r: R): string {
  const params = [
    `page=${pick(r, ["-1", "0", "1e9", "abc", "1.5", "", "99999999999999999999"])}`,
    `limit=${pick(r, ["0", "101", "-5", "x", "1e3", ""])}`,
    `status=${pick(r, ["gold", "", "completed,spam", "%00"])}`,
    `range=${pick(r, ["1y", "", "7", "all;drop"])}`,
    `search=${enc(junkString(r).slice(0, 5000))}`,
    `sortBy=${pick(r, ["password", "-", "--name", ""])}`,
    `path=${encodeURIComponent(pick(r, ["../../etc/passwd", "", "x/y", "%00"]))}`,
  ];
  return params.filter(() => r() < 0.5).join("&");
}

function bearer(r: R, t: BadTargets): Record<string, string> {
  return { authorization: `Bearer ${pick(r, [t.keys.read, t.keys.admin, t.keys.submit])}` };
}

/** A JSON body for events, upload-url or validate with a defect each must refuse. */
function endpointBody(r: R, t: BadTargets, endpoint: string): string | Uint8Array {
  if (r() < 0.25) return rawBadBody(r);
  if (endpoint === "events") {
    return JSON.stringify(
      pick(r, [
        { type: pick(r, ["click", "", "VIEW", 1, null]) },
        { type: "view", session_id: "s".repeat(129) },
        { type: "view", extra: junkValue(r) },
        { session_id: "abc" },
        [{ type: "view" }],
      ]),
    );
  }
  if (endpoint === "upload-url") {
    const body: Record<string, unknown> = {
      fieldId: t.fileFieldId,
      fileName: "cv.pdf",
      contentType: "application/pdf",
      sizeBytes: 1000,
    };
    switch (int(r, 0, 5)) {
      case 0:
        body.fieldId = pick(r, ["fld_name", "nope", "", 5, null]);
        break;
      case 1:
        body.contentType = pick(r, ["image/png", "application/x-msdownload", "", "pdf", 7]);
        break;
      case 2:
        body.sizeBytes = pick(r, [-1, 0.5, 2 * 1024 * 1024, 1e20, "1000", null, Infinity]);
        break;
      case 3:
        delete body[pick(r, ["fieldId", "fileName", "contentType", "sizeBytes"])];
        break;
      case 4:
        body.fileName = pick(r, [5, null, "", "x".repeat(5000), ["a"]]);
        break;
      default:
        return JSON.stringify([body]);
    }
    return JSON.stringify(body);
  }
  return JSON.stringify({ data: { ...validData(), email: pick(r, ["", "no", 5]) } });
}

/** A no-JS (urlencoded) submit with a defect. */
function urlencodedBody(r: R): string | Uint8Array {
  return pick(r, [
    "name=Ada",
    "email=ada%40example.com",
    "name=%ZZ&email=ada%40example.com",
    "name=Ada+1&email=ada%40example.com&age=36",
    "name=Ada&email=ada%40example.com&age=17&_redirect=javascript:alert(1)",
    "name=Ada&email=ada%40example.com&_hp=filled",
    "name=Ada&email=ada%40example.com&plan=gold&redirect=https://evil.example/",
    "name=Ada&email=ada%40example.com&_schema_version=9",
    "=&&==&name",
    `name=${"x".repeat(300_000)}`,
    "name=Ada&email=ada%40example.com&age=36&unknown=1",
  ]) as string;
}

/** The i-th non-submit-body case. */
export function badPathCase(r: R, t: BadTargets): BadCase {
  const json = { "content-type": "application/json" };
  switch (int(r, 0, 9)) {
    case 0: {
      const depth = int(r, 1, 6);
      const segs = Array.from({ length: depth }, () => junkSegment(r));
      const prefix = pick(r, [
        "",
        "/api/v1",
        "/api/v1/forms/p",
        "/api/v1/submit/p",
        "/admin",
        "/f",
      ]);
      return {
        kind: "path",
        method: pick(r, METHODS),
        path: `${prefix}/${segs.join("/")}${r() < 0.3 ? `?${junkQuery(r)}` : ""}`,
        headers: {},
        body: undefined,
      };
    }
    case 1:
      return {
        kind: "method",
        method: pick(r, ["PUT", "DELETE", "PATCH"]),
        path: pick(r, [
          `/api/v1/submit/p/${t.formId}`,
          `/api/v1/forms/p/${t.formId}`,
          `/api/v1/forms/p/${t.formId}/upload-url`,
        ]),
        headers: { ...json, authorization: `Bearer ${t.keys.admin}` },
        body: JSON.stringify({ data: validData() }),
      };
    case 2:
      return {
        kind: "server api",
        method: "GET",
        path: pick(r, [
          `/api/v1/server/forms?${junkQuery(r)}`,
          `/api/v1/server/forms/${pick(r, [t.formId, t.otherFormId, junkSegment(r)])}`,
          `/api/v1/server/forms/${t.formId}/submissions?${junkQuery(r)}`,
          `/api/v1/server/forms/${t.formId}/submissions/${junkSegment(r)}`,
          `/api/v1/server/forms/${t.formId}/analytics?${junkQuery(r)}`,
          `/api/v1/server/forms/${t.formId}/files/download?${junkQuery(r)}`,
        ]),
        headers: r() < 0.2 ? { authorization: "Bearer junk" } : bearer(r, t),
      };
    case 3:
      return {
        kind: "server delete",
        method: "DELETE",
        path: `/api/v1/server/forms/${pick(r, [t.formId, t.otherFormId])}/submissions`,
        headers: { ...json, authorization: `Bearer ${pick(r, [t.keys.admin, t.keys.read])}` },
        body: r() < 0.2 ? rawBadBody(r) : JSON.stringify(
          pick(r, [
            { ids: "sub_x" },
            { ids: Array.from({ length: 501 }, (_, k) => `sub_${k}`) },
            { ids: [] },
            { ids: [1, null, {}] },
            { ids: [`sub_${"0".repeat(26)}`], extra: 1 },
            { id: ["sub_1"] },
            [],
          ]),
        ),
      };
    case 4:
    case 5: {
      const endpoint = pick(r, ["events", "upload-url", "validate"]);
      return {
        kind: endpoint,
        method: "POST",
        path: `/api/v1/forms/p/${
          pick(r, [t.formId, t.formId, t.closedFormId, junkSegment(r)])
        }/${endpoint}`,
        headers: {
          "content-type": pick(r, ["application/json", "application/json", "text/plain"]),
          origin: pick(r, [t.origin, t.origin, "https://evil.example"]),
        },
        body: endpointBody(r, t, endpoint),
      };
    }
    case 6:
      return {
        kind: "no-js submit",
        method: "POST",
        path: `/api/v1/submit/p/${pick(r, [t.formId, t.closedFormId, t.captchaFormId])}`,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: pick(r, [t.origin, "https://evil.example"]),
        },
        body: urlencodedBody(r),
      };
    case 7:
      return {
        kind: "storage",
        method: pick(r, ["PUT", "GET"]),
        path: pick(r, [
          `/api/v1/uploads/${t.formId}/${junkSegment(r)}`,
          `/api/v1/files/${t.formId}/${junkSegment(r)}?token=${junkSegment(r)}`,
          `/api/v1/uploads/${junkSegment(r)}/${junkSegment(r)}`,
        ]),
        headers: {
          "content-type": "application/pdf",
          authorization: pick(r, ["Bearer junk", "Bearer ", "x"]),
        },
        body: undefined,
      };
    case 8:
      return {
        kind: "admin",
        method: "POST",
        path: pick(r, ["/admin/login", "/admin/logout", "/admin/workspaces", "/admin/keys"]),
        headers: {
          "content-type": pick(r, ["application/x-www-form-urlencoded", "application/json"]),
          cookie: pick(r, ["", "fw_session=junk", "fw_session="]),
          origin: pick(r, ["https://evil.example", "null"]),
        },
        body: pick(r, ["email=admin%40x.y&password=wrong", "email=&password=", "%%%", "{}"]),
      };
    default:
      return {
        kind: "schema",
        method: pick(r, ["GET", "HEAD", "OPTIONS"]),
        path: `/api/v1/forms/p/${pick(r, [t.formId, junkSegment(r)])}${
          r() < 0.5 ? `/altcha-challenge` : ""
        }?${junkQuery(r)}`,
        headers: {
          origin: pick(r, [t.origin, "https://evil.example"]),
          "access-control-request-method": pick(r, ["POST", "DELETE", "X"]),
        },
      };
  }
}
