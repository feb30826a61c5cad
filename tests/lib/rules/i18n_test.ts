/**
 * Languages: the visitor's language is picked from `?lang=`, `Accept-Language` and the
 * form's default; messages in it come through i18next with the field's translated label;
 * `type` never changes; every shipped catalogue has every message and page text.
 */
import assert from "node:assert/strict";
import {
  acceptedLanguages,
  EN,
  english,
  evaluateForm,
  formatterFor,
  isRtl,
  messageFor,
  type MessageId,
  pickLanguage,
  type RuleForm,
  SHIPPED_LANGUAGES,
  UI_EN,
  uiText,
} from "@/lib/rules/mod.ts";

const FORM: RuleForm = {
  default_language: "en",
  translations: {
    de: { fields: { name: { label: "Ihr Name" }, agree: { label: "Ich stimme zu." } } },
    ar: { fields: { name: { label: "الاسم" } } },
    "pt-BR": {},
  },
  fields: [
    { name: "name", label: "Your name", type: "text", required: true },
    { name: "age", type: "integer", min: 18 },
    { name: "agree", label: "I agree.", type: "boolean", required: true },
  ],
};

Deno.test("i18n - picking the language", async (t) => {
  await t.step("?lang= wins when the form has it, by exact tag or primary subtag", () => {
    assert.equal(pickLanguage(FORM, "de", "fr"), "de");
    assert.equal(pickLanguage(FORM, "DE-at", null), "de");
    assert.equal(pickLanguage(FORM, "pt", null), "pt-BR");
  });
  await t.step("else the best Accept-Language the form has, else the default", () => {
    assert.equal(pickLanguage(FORM, "xx", "fr;q=0.9, ar;q=0.8, de;q=0.5"), "ar");
    assert.equal(pickLanguage(FORM, null, "de;q=0, ar;q=0.1"), "ar");
    assert.equal(pickLanguage(FORM, null, "fr, ja"), "en");
    assert.equal(pickLanguage({ default_language: "de" }, "fr", null), "de");
    assert.equal(pickLanguage({}, null, null), "en");
  });
  await t.step("Accept-Language parsing keeps order among equal q", () => {
    assert.deepEqual(acceptedLanguages("da, en-GB;q=0.8, en;q=0.8, *;q=0.1, x;q=0"), [
      "da",
      "en-GB",
      "en",
      "*",
    ]);
  });
  await t.step("right to left: Arabic, Hebrew, Persian, Urdu", () => {
    for (const l of ["ar", "he", "fa", "ur", "ar-EG"]) assert.ok(isRtl(l), l);
    for (const l of ["en", "de", "fr", "es"]) assert.ok(!isRtl(l), l);
  });
});

Deno.test("i18n - messages", async (t) => {
  await t.step("English through i18next is exactly the rules' own English", () => {
    const params = { label: "L", name: "n", min: 2, max: "5 MB" };
    for (const id of Object.keys(EN) as MessageId[]) {
      assert.equal(formatterFor("en")(id, params, null), english(id, params, null), id);
    }
  });
  await t.step("every shipped language has every message and page text", () => {
    for (const lang of SHIPPED_LANGUAGES) {
      for (const id of Object.keys(EN) as MessageId[]) {
        const text = formatterFor(lang)(id, { label: "L", name: "n", min: 1, max: 2 }, null);
        assert.ok(text && !text.includes("{{"), `${lang} ${id}: ${text}`);
        if (lang !== "en" && id !== "file_ref") {
          assert.notEqual(
            text,
            english(id, { label: "L", name: "n", min: 1, max: 2 }, null),
            `${lang} ${id}`,
          );
        }
      }
      for (const id of Object.keys(UI_EN) as (keyof typeof UI_EN)[]) {
        const params = { n: 1, total: 2, mark: "*", form: "F", days: 30, email: "a@b.c" };
        assert.ok(!uiText(lang, id, params).includes("{{"), `${lang} ui.${id}`);
      }
    }
  });
  await t.step("a German 422 item: translated label and message, the same type", () => {
    const en = evaluateForm(FORM, { age: 3 });
    const de = evaluateForm(FORM, { age: 3 }, { messages: formatterFor("de", FORM) });
    assert.deepEqual(de.errors.map((e) => e.type), en.errors.map((e) => e.type));
    assert.deepEqual(de.errors.map((e) => e.message), [
      "Ihr Name ist ein Pflichtfeld.",
      "age muss mindestens 18 sein.",
      "Bitte „Ich stimme zu“ ankreuzen.",
    ]);
    assert.equal(messageFor("ar", en.errors[0], FORM), "الحقل «الاسم» مطلوب.");
    assert.equal(messageFor("fr", en.errors[1], FORM), "age doit être au moins 18.");
  });
  await t.step("a language without a catalogue falls back to English", () => {
    assert.equal(formatterFor("ja")("required", { label: "X" }, null), "X is required.");
    assert.equal(uiText("ja", "next"), "Next");
    assert.equal(uiText("de", "step", { n: 2, total: 3 }), "Schritt 2 von 3");
  });
});
