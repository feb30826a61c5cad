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
    success: "Merci ! Votre réponse a bien été reçue.",
    fix: "Veuillez corriger les champs signalés ci-dessous.",
    optional: "facultatif",
  },
};
