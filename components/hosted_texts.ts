/**
 * The hosted page's own words (buttons, progress, notices, the thank-you page) in the
 * languages Formwell ships; a form's own texts come from its `translations`. Shared by the
 * server render and the island, so both say the same thing.
 * @module
 */

/** The page's own texts. `{n}`, `{total}`, `{form}` are filled in. */
export interface PageTexts {
  send: string;
  sending: string;
  sendingStatus: string;
  next: string;
  back: string;
  checking: string;
  progress: string;
  requiredNote: string;
  requiredNoteHidden: string;
  choose: string;
  correctOne: string;
  correctMany: string;
  thanks: string;
  received: string;
  reference: string;
  another: string;
  powered: string;
  closed: string;
}

const EN: PageTexts = {
  send: "Send",
  sending: "Sending…",
  sendingStatus: "Sending your response…",
  next: "Next",
  back: "Back",
  checking: "Checking…",
  progress: "Step {n} of {total}",
  requiredNote: "Fields marked {mark} are required.",
  requiredNoteHidden: "with an asterisk",
  choose: "Choose…",
  correctOne: "Please correct 1 field.",
  correctMany: "Please correct {n} fields.",
  thanks: "Thank you",
  received: "Your response to “{form}” was received.",
  reference: "Reference:",
  another: "Send another response",
  powered: "Powered by Formwell",
  closed: "This form is not accepting responses right now.",
};

const TEXTS: Record<string, PageTexts> = {
  en: EN,
  de: {
    send: "Senden",
    sending: "Wird gesendet…",
    sendingStatus: "Ihre Antwort wird gesendet…",
    next: "Weiter",
    back: "Zurück",
    checking: "Wird geprüft…",
    progress: "Schritt {n} von {total}",
    requiredNote: "Mit {mark} markierte Felder sind Pflichtfelder.",
    requiredNoteHidden: "einem Sternchen",
    choose: "Bitte wählen…",
    correctOne: "Bitte korrigieren Sie 1 Feld.",
    correctMany: "Bitte korrigieren Sie {n} Felder.",
    thanks: "Vielen Dank",
    received: "Ihre Antwort auf „{form}“ ist eingegangen.",
    reference: "Referenz:",
    another: "Eine weitere Antwort senden",
    powered: "Bereitgestellt von Formwell",
    closed: "Dieses Formular nimmt gerade keine Antworten an.",
  },
  fr: {
    send: "Envoyer",
    sending: "Envoi…",
    sendingStatus: "Envoi de votre réponse…",
    next: "Suivant",
    back: "Retour",
    checking: "Vérification…",
    progress: "Étape {n} sur {total}",
    requiredNote: "Les champs marqués {mark} sont obligatoires.",
    requiredNoteHidden: "d’un astérisque",
    choose: "Choisir…",
    correctOne: "Veuillez corriger 1 champ.",
    correctMany: "Veuillez corriger {n} champs.",
    thanks: "Merci",
    received: "Votre réponse à « {form} » a bien été reçue.",
    reference: "Référence :",
    another: "Envoyer une autre réponse",
    powered: "Propulsé par Formwell",
    closed: "Ce formulaire n’accepte pas de réponses pour le moment.",
  },
  es: {
    send: "Enviar",
    sending: "Enviando…",
    sendingStatus: "Enviando tu respuesta…",
    next: "Siguiente",
    back: "Atrás",
    checking: "Comprobando…",
    progress: "Paso {n} de {total}",
    requiredNote: "Los campos marcados con {mark} son obligatorios.",
    requiredNoteHidden: "un asterisco",
    choose: "Elige…",
    correctOne: "Corrige 1 campo.",
    correctMany: "Corrige {n} campos.",
    thanks: "Gracias",
    received: "Hemos recibido tu respuesta a «{form}».",
    reference: "Referencia:",
    another: "Enviar otra respuesta",
    powered: "Con la tecnología de Formwell",
    closed: "Este formulario no acepta respuestas en este momento.",
  },
  ar: {
    send: "إرسال",
    sending: "جارٍ الإرسال…",
    sendingStatus: "جارٍ إرسال ردك…",
    next: "التالي",
    back: "السابق",
    checking: "جارٍ التحقق…",
    progress: "الخطوة {n} من {total}",
    requiredNote: "الحقول المميزة بـ {mark} مطلوبة.",
    requiredNoteHidden: "بعلامة النجمة",
    choose: "اختر…",
    correctOne: "يرجى تصحيح حقل واحد.",
    correctMany: "يرجى تصحيح {n} من الحقول.",
    thanks: "شكرًا لك",
    received: "تم استلام ردك على «{form}».",
    reference: "المرجع:",
    another: "إرسال رد آخر",
    powered: "مدعوم من Formwell",
    closed: "لا يقبل هذا النموذج الردود حاليًا.",
  },
};

/** The page texts of a language (its base language's, else English). */
export function pageTexts(lang: string): PageTexts {
  return TEXTS[lang] ?? TEXTS[lang.split("-")[0].toLowerCase()] ?? EN;
}

/** Fills `{name}` placeholders. */
export function fillText(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));
}
