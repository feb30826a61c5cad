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
    queued:
      "Sie sind offline. Ihre Antwort ist auf diesem Gerät gespeichert und wird gesendet, sobald die Verbindung zurück ist.",
    success: "Vielen Dank! Ihre Antwort ist angekommen.",
    fix: "Bitte korrigieren Sie die markierten Felder.",
    optional: "optional",
    checking: "Wird geprüft…",
    required_note: "Mit {{mark}} markierte Felder sind Pflichtfelder.",
    required_mark: "einem Sternchen",
    choose: "Bitte wählen…",
    correct_one: "Bitte korrigieren Sie 1 Feld.",
    correct_many: "Bitte korrigieren Sie {{n}} Felder.",
    thanks: "Vielen Dank",
    received: "Ihre Antwort auf „{{form}}“ ist eingegangen.",
    reference: "Referenz:",
    another: "Eine weitere Antwort senden",
    powered: "Bereitgestellt von Formwell",
    closed: "Dieses Formular nimmt gerade keine Antworten an.",
    draft_notice:
      "Ihre Antworten werden beim Tippen gespeichert ({{days}} Tage lang), damit Sie später weitermachen können.",
    draft_files: "Dateien werden nicht gespeichert: Sie wählen sie beim nächsten Mal erneut aus.",
    draft_saving: "Wird gespeichert…",
    draft_saved: "Gespeichert",
    draft_offline: "Nicht gespeichert: Sie sind offline",
    draft_error: "Nicht gespeichert",
    draft_link: "Link zum späteren Weitermachen per E-Mail senden",
    draft_send_link: "Link senden",
    draft_sent: "Wir haben einen Link an {{email}} gesendet. Er gilt {{days}} Tage.",
    draft_not_yet:
      "Ihr Fortschritt konnte noch nicht gespeichert werden. Versuchen Sie es gleich noch einmal.",
    draft_bad_email: "Bitte geben Sie eine gültige E-Mail-Adresse ein.",
    draft_link_failed:
      "Der Link konnte nicht gesendet werden. Versuchen Sie es später noch einmal.",
    form_changed:
      "Dieses Formular wurde geändert, seit Sie es geöffnet haben. Prüfen Sie Ihre Antworten und senden Sie es erneut.",
    key_reused:
      "Diese Seite hat bereits eine Antwort mit anderen Angaben gesendet. Senden Sie erneut, um diese Angaben als neue Antwort einzureichen.",
    files_again: "Bitte wählen Sie Ihre Dateien erneut aus.",
    went_wrong: "Etwas ist schiefgelaufen.",
    upload_failed: "Die Datei konnte nicht hochgeladen werden.",
  },
};
