/**
 * French validation messages and hosted page texts.
 * @module
 */
import type { Catalogue } from "../messages_en.ts";

/** The French catalogue. */
export const FR: Catalogue = {
  messages: {
    required: "{{label}} est obligatoire.",
    tick: "Veuillez cocher « {{label}} ».",
    unknown_field: "Champ inconnu '{{name}}'.",
    file_ref: "{{label}} doit être une référence de fichier {path, ...}.",
    file_kind: "{{label}} n’accepte pas ce type de fichier.",
    file_size: "{{label}} accepte des fichiers jusqu’à {{max}}.",
    file_empty: "{{label}} : le fichier est vide.",
    number: "{{label}} doit être un nombre.",
    integer: "{{label}} doit être un nombre entier.",
    number_min: "{{label}} doit être au moins {{min}}.",
    number_max: "{{label}} doit être au plus {{max}}.",
    boolean: "{{label}} doit être vrai ou faux.",
    string: "{{label}} doit être un texte.",
    option: "{{label}} doit être l’une des options proposées.",
    list: "{{label}} doit être une liste de textes.",
    list_twice: "{{label}} contient une option en double.",
    list_options: "{{label}} ne doit contenir que les options proposées.",
    list_min: "{{label}} : choisissez-en au moins {{min}}.",
    list_max: "{{label}} : {{max}} choix au maximum.",
    length_min: "{{label}} doit contenir au moins {{min}} caractères.",
    length_max: "{{label}} doit contenir au plus {{max}} caractères.",
    pattern: "{{label}} n’est pas au format attendu.",
    date_min: "{{label}} doit être le {{min}} ou après.",
    date_max: "{{label}} doit être le {{max}} ou avant.",
    email: "{{label}} doit être une adresse e-mail valide.",
    url: "{{label}} doit être une URL valide.",
    url_scheme: "{{label}} doit être une URL http(s).",
    tel: "{{label}} doit être un numéro de téléphone.",
    date: "{{label}} doit être une date (AAAA-MM-JJ).",
    datetime: "{{label}} doit être une date et une heure (ISO 8601).",
    summary: "L’envoi contient des champs non valides.",
  },
  ui: {
    submit: "Envoyer",
    next: "Suivant",
    back: "Retour",
    step: "Étape {{n}} sur {{total}}",
    sending: "Envoi…",
    sending_status: "Envoi de votre réponse…",
    queued:
      "Vous êtes hors ligne. Votre réponse est enregistrée sur cet appareil et sera envoyée au retour de la connexion.",
    success: "Merci ! Votre réponse a bien été reçue.",
    fix: "Veuillez corriger les champs signalés ci-dessous.",
    optional: "facultatif",
    checking: "Vérification…",
    required_note: "Les champs marqués {{mark}} sont obligatoires.",
    required_mark: "d’un astérisque",
    choose: "Choisir…",
    correct_one: "Veuillez corriger 1 champ.",
    correct_many: "Veuillez corriger {{n}} champs.",
    thanks: "Merci",
    received: "Votre réponse à « {{form}} » a bien été reçue.",
    reference: "Référence :",
    another: "Envoyer une autre réponse",
    powered: "Propulsé par Formwell",
    closed: "Ce formulaire n’accepte pas de réponses pour le moment.",
    draft_notice:
      "Vos réponses sont enregistrées pendant la saisie (conservées {{days}} jours) : vous pourrez terminer plus tard.",
    draft_files:
      "Les fichiers ne sont pas enregistrés : vous les choisirez de nouveau à votre retour.",
    draft_saving: "Enregistrement…",
    draft_saved: "Enregistré",
    draft_offline: "Non enregistré : vous êtes hors ligne",
    draft_error: "Non enregistré",
    draft_link: "M’envoyer un lien pour terminer plus tard",
    draft_send_link: "Envoyer le lien",
    draft_sent: "Nous avons envoyé un lien à {{email}}. Il est valable {{days}} jours.",
    draft_not_yet:
      "Votre progression n’a pas encore pu être enregistrée. Réessayez dans un instant.",
    draft_bad_email: "Veuillez saisir une adresse e-mail valide.",
    draft_link_failed: "Le lien n’a pas pu être envoyé. Réessayez plus tard.",
    form_changed:
      "Ce formulaire a changé depuis que vous l’avez ouvert. Vérifiez vos réponses et envoyez-le de nouveau.",
    key_reused:
      "Cette page a déjà envoyé une réponse avec d’autres valeurs. Envoyez de nouveau pour soumettre ces réponses comme une nouvelle réponse.",
    files_again: "Choisissez de nouveau vos fichiers.",
    went_wrong: "Une erreur s’est produite.",
    upload_failed: "Le fichier n’a pas pu être envoyé.",
  },
};
