/**
 * German validation messages and hosted page texts.
 * @module
 */
import type { Catalogue } from "../messages_en.ts";

/** The German catalogue. */
export const DE: Catalogue = {
  messages: {
    required: "{{label}} ist ein Pflichtfeld.",
    tick: "Bitte „{{label}}“ ankreuzen.",
    unknown_field: "Unbekanntes Feld '{{name}}'.",
    file_ref: "{{label}} muss ein Dateiverweis {path, ...} sein.",
    file_kind: "{{label}} akzeptiert diesen Dateityp nicht.",
    file_size: "{{label}} akzeptiert Dateien bis {{max}}.",
    file_empty: "{{label}}: Die Datei ist leer.",
    number: "{{label}} muss eine Zahl sein.",
    integer: "{{label}} muss eine ganze Zahl sein.",
    number_min: "{{label}} muss mindestens {{min}} sein.",
    number_max: "{{label}} darf höchstens {{max}} sein.",
    boolean: "{{label}} muss wahr oder falsch sein.",
    string: "{{label}} muss ein Text sein.",
    option: "{{label}} muss eine der angebotenen Optionen sein.",
    list: "{{label}} muss eine Liste von Texten sein.",
    list_twice: "{{label}} enthält eine Option doppelt.",
    list_options: "{{label}} darf nur angebotene Optionen enthalten.",
    list_min: "{{label}}: Bitte mindestens {{min}} auswählen.",
    list_max: "{{label}}: Höchstens {{max}} Auswahlen erlaubt.",
    length_min: "{{label}} muss mindestens {{min}} Zeichen lang sein.",
    length_max: "{{label}} darf höchstens {{max}} Zeichen lang sein.",
    pattern: "{{label}} hat nicht das erwartete Format.",
    date_min: "{{label}} darf nicht vor dem {{min}} liegen.",
    date_max: "{{label}} darf nicht nach dem {{max}} liegen.",
    email: "{{label}} muss eine gültige E-Mail-Adresse sein.",
    url: "{{label}} muss eine gültige URL sein.",
    url_scheme: "{{label}} muss eine http(s)-URL sein.",
    tel: "{{label}} muss eine Telefonnummer sein.",
    date: "{{label}} muss ein Datum sein (JJJJ-MM-TT).",
    datetime: "{{label}} muss Datum und Uhrzeit sein (ISO 8601).",
    summary: "Die Einsendung enthält ungültige Felder.",
  },
  ui: {
    submit: "Senden",
    next: "Weiter",
    back: "Zurück",
    step: "Schritt {{n}} von {{total}}",
    sending: "Wird gesendet…",
    sending_status: "Ihre Antwort wird gesendet…",
    success: "Vielen Dank! Ihre Antwort ist angekommen.",
    fix: "Bitte korrigieren Sie die markierten Felder.",
    optional: "optional",
  },
};
