/**
 * The scale rows' dataset: `n` six-field submissions spread over a year, each one's values
 * drawn from word lists by a generator seeded with its position (so any submission can be
 * made again without storing it), with three planted needles whose exact counts are known:
 * a rare word (in 10 names, from the oldest to the newest), a common word (the topic of
 * every third submission) and one person's email (in up to 1,000 submissions, to erase).
 * @module
 */

/** The rare word: a surname planted in {@linkcode RARE_COUNT} names and nowhere else. */
export const RARE_WORD = "quennell";
/** How many submissions hold the rare word (fewer when `n` is smaller). */
export const RARE_COUNT = 10;
/** The common word: the topic of every submission at a position `i % 3 === 1`. */
export const COMMON_WORD = "support";
/** The address erased by the erase row. */
export const ERASE_EMAIL = "erase.me@example.org";
/** How many submissions hold {@linkcode ERASE_EMAIL} at most (a tenth of `n` when smaller). */
export const ERASE_COUNT = 1_000;

const FIRST = [
  "Ada",
  "Alan",
  "Amélie",
  "Anika",
  "Arjun",
  "Beatriz",
  "Bjørn",
  "Carmen",
  "Chen",
  "Chloé",
  "Dmitri",
  "Elena",
  "Emeka",
  "Farah",
  "Felix",
  "Grace",
  "Hana",
  "Hugo",
  "Ingrid",
  "Isaac",
  "Jamal",
  "José",
  "Julia",
  "Kai",
  "Kenji",
  "Lars",
  "Leila",
  "Linnea",
  "Łukasz",
  "Maya",
  "Mei",
  "Mohammed",
  "Nadia",
  "Noah",
  "Olga",
  "Omar",
  "Paula",
  "Priya",
  "Rafael",
  "Rosa",
  "Sanjay",
  "Sofia",
  "Tariq",
  "Thea",
  "Tomás",
  "Uma",
  "Valentina",
  "Wei",
  "Yara",
  "Zoë",
];
const LAST = [
  "Abara",
  "Ahmed",
  "Andersson",
  "Becker",
  "Bianchi",
  "Brown",
  "Castillo",
  "Costa",
  "Dubois",
  "Eriksen",
  "Fernández",
  "Fischer",
  "García",
  "Gómez",
  "Hansen",
  "Hernández",
  "Ivanova",
  "Jensen",
  "Kaur",
  "Kim",
  "Kowalski",
  "Lee",
  "Lindqvist",
  "López",
  "Martin",
  "Meyer",
  "Moreau",
  "Müller",
  "Nakamura",
  "Nguyen",
  "Novak",
  "Okafor",
  "Olsen",
  "Patel",
  "Pereira",
  "Petrov",
  "Rossi",
  "Sato",
  "Schmidt",
  "Silva",
  "Singh",
  "Smith",
  "Suzuki",
  "Tanaka",
  "Taylor",
  "Wagner",
  "Walker",
  "Weber",
  "Wilson",
  "Yilmaz",
  "Zhang",
  "Zieliński",
];
const DOMAINS = ["example.com", "example.net", "mail.example", "corp.example", "inbox.test"];
const COMPANY_A = [
  "Analytical",
  "Blue",
  "Bright",
  "Cedar",
  "Copper",
  "Delta",
  "Granite",
  "Harbor",
  "Lumen",
  "Maple",
  "Nimbus",
  "Northwind",
  "Orchid",
  "Pioneer",
  "Quartz",
  "River",
  "Summit",
  "Vertex",
];
const COMPANY_B = [
  "Engines",
  "Labs",
  "Logistics",
  "Media",
  "Partners",
  "Robotics",
  "Studio",
  "Systems",
  "Textiles",
  "Ventures",
  "Works",
  "Foods",
];
const COMPANY_C = ["Ltd", "GmbH", "Inc", "SA", "AB", "BV", "Co"];
const TOPICS = ["sales", COMMON_WORD, "other"];
const WORDS = [
  "we",
  "would",
  "like",
  "a",
  "quote",
  "for",
  "seats",
  "billed",
  "yearly",
  "please",
  "call",
  "me",
  "back",
  "about",
  "the",
  "pricing",
  "of",
  "your",
  "plan",
  "our",
  "team",
  "is",
  "growing",
  "and",
  "needs",
  "more",
  "forms",
  "can",
  "you",
  "send",
  "an",
  "invoice",
  "to",
  "accounts",
  "department",
  "thanks",
  "in",
  "advance",
  "question",
  "regarding",
  "export",
  "data",
  "retention",
  "policy",
  "how",
  "long",
  "do",
  "keep",
  "files",
  "uploaded",
  "by",
  "visitors",
  "interested",
  "demo",
  "next",
  "week",
  "tuesday",
  "or",
  "thursday",
  "afternoon",
  "would",
  "it",
  "be",
  "possible",
  "integrate",
  "with",
  "crm",
  "webhook",
  "endpoint",
  "returns",
  "error",
  "since",
  "yesterday",
  "morning",
  "kind",
  "regards",
  "hello",
  "there",
  "looking",
  "forward",
  "hearing",
  "from",
  "booking",
  "event",
  "venue",
  "catering",
  "guests",
  "dietary",
  "requirements",
  "vegetarian",
  "parking",
  "arrival",
  "time",
  "monday",
  "order",
  "number",
  "delivery",
  "address",
  "changed",
  "recently",
  "moved",
  "office",
  "new",
  "building",
  "floor",
  "reception",
  "sign",
  "contract",
  "renewal",
  "discount",
  "nonprofit",
  "education",
  "students",
  "teachers",
  "volunteer",
  "application",
  "experience",
  "weekends",
  "available",
  "résumé",
  "attached",
  "portfolio",
  "link",
  "café",
  "naïve",
  "façade",
  "über",
  "straße",
  "größe",
  "señor",
  "niño",
  "crème",
  "brûlée",
];

/** One submission's field values, as the bench's six-field form takes them. */
export type ScaleFields = {
  name: string;
  email: string;
  company: string;
  topic: string;
  message: string;
  newsletter: boolean;
};

/** A small fast generator of numbers in [0, 1), seeded (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** The dataset of `n` submissions: where the needles are and how many each has. */
export class ScaleDataset {
  /** Positions (write order, oldest first) whose name holds the rare word. */
  readonly rare: number[];
  /** Every `eraseStep`-th position (from 0) holds the erased address, `eraseCount` of them. */
  readonly eraseStep: number;
  readonly eraseCount: number;
  readonly #rareSet: Set<number>;

  constructor(readonly n: number) {
    const k = Math.min(RARE_COUNT, n);
    // From the oldest to the newest, evenly: a search must find last year's as well.
    this.rare = Array.from(
      { length: k },
      (_, j) => k === 1 ? 0 : Math.round(j * (n - 1) / (k - 1)),
    );
    this.#rareSet = new Set(this.rare);
    this.eraseCount = Math.min(ERASE_COUNT, Math.floor(n / 10));
    this.eraseStep = this.eraseCount ? Math.floor(n / this.eraseCount) : n + 1;
  }

  /**
   * How many of the first `stored` submissions (all by default) hold each needle: the rare
   * word, the common word (their topic) and the erased address.
   */
  counts(stored = this.n): { rare: number; common: number; erased: number } {
    return {
      rare: this.rare.filter((i) => i < stored).length,
      common: Math.floor((stored + 1) / 3),
      erased: Math.min(this.eraseCount, Math.ceil(stored / this.eraseStep)),
    };
  }

  /** Whether the i-th submission carries the erased address. */
  erased(i: number): boolean {
    return i % this.eraseStep === 0 && i / this.eraseStep < this.eraseCount;
  }

  /** The i-th submission's values (the same every time). */
  fields(i: number): ScaleFields {
    const r = rng(i * 2654435761 + 1);
    const first = pick(r, FIRST);
    const last = this.#rareSet.has(i) ? "Quennell" : pick(r, LAST);
    const plain = (s: string) => s.normalize("NFKD").replace(/[^A-Za-z]/g, "").toLowerCase();
    const email = this.erased(i)
      ? ERASE_EMAIL
      : `${plain(first)}.${plain(last)}${i}@${pick(r, DOMAINS)}`;
    const words = 18 + Math.floor(r() * 18);
    const message: string[] = [];
    for (let w = 0; w < words; w++) message.push(pick(r, WORDS));
    message[0] = message[0][0].toUpperCase() + message[0].slice(1);
    return {
      name: `${first} ${last}`,
      email,
      company: `${pick(r, COMPANY_A)} ${pick(r, COMPANY_B)} ${pick(r, COMPANY_C)}`,
      topic: TOPICS[i % 3],
      message: `${message.join(" ")}.`,
      newsletter: r() < 0.3,
    };
  }
}

/**
 * Words of the lists that begin with the rare or the common word (case- and
 * accent-insensitively): none may, or a search's count would not be the planted one.
 */
export function needleClashes(): string[] {
  const norm = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  const all = [
    ...FIRST,
    ...LAST,
    ...DOMAINS.flatMap((d) => d.split(".")),
    ...COMPANY_A,
    ...COMPANY_B,
    ...COMPANY_C,
    ...WORDS,
    "sales",
    "other",
  ].map(norm);
  return all.filter((w) => w.startsWith(RARE_WORD) || w.startsWith(COMMON_WORD));
}
