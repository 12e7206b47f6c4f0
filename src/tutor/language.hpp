// tutor/language.hpp — which language the tutor speaks, and its own words in that language.
//
// Why: classes taught in Spanish get the lesson documents (README.es.md), the hints (hints.es.md)
// and the tutor's frame text in Spanish. The frame text goes through GNU gettext, the usual
// convention for a C/C++ program's messages: English is the source language and the fallback,
// po/es.po the Spanish catalogue, compiled by msgfmt at build time into
// <build>/locale/es/LC_MESSAGES/attn.mo (installed under share/locale).
//
// How gettext is driven (and why not setlocale(LC_ALL, "")): only LC_MESSAGES is ever set, to
// "C.UTF-8", a locale every glibc has whether or not es_ES is generated; the language comes from
// LANGUAGE, which GNU gettext honours whenever LC_MESSAGES is not "C"; the catalogue's text is
// delivered in UTF-8 (bind_textdomain_codeset). LC_NUMERIC is never touched, so numbers keep
// their decimal point in every language, exactly as PyTorch prints them.
//
//   use_language(choose_language("", process_environment()));   // ATTN_LANG, then the locale
//   std::cout << tr("Start with: attn lesson 1") << "\n";
//   std::cout << trf("{1} of {2} exercises pass", {"3", "7"});  // translators may reorder {n}
//   std::cout << trn("{1} hint seen", "{1} hints seen", 1, {"1"});  // plural forms (ngettext)
//
// Strings that are built into tables before a language is chosen are marked with N_("…") (for
// xgettext) and translated where they are shown, with tr(std::string).
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

/// Marks a string for the catalogue without translating it here (xgettext --keyword=N_).
#define N_(english) english

namespace attn::tutor {

/// The languages the tutor speaks, the source language first: {"en", "es"}.
const std::vector<std::string>& tutor_languages();

/// The variables that choose the language, by name: ATTN_LANG, LC_ALL, LC_MESSAGES, LANG.
using LanguageEnvironment = std::map<std::string, std::string>;
LanguageEnvironment process_environment();

/// The language to speak: `option` (--lang; empty when not given) if given, which must be one of
/// tutor_languages() (InputError naming it and the choices otherwise); else ATTN_LANG (same rule:
/// "es", or a locale name such as "es_ES.UTF-8"); else the locale, as POSIX reads it — the first
/// of LC_ALL, LC_MESSAGES, LANG that is set and not empty — Spanish when it starts with "es";
/// else English.
std::string choose_language(const std::string& option, const LanguageEnvironment& environment);

/// Makes `language` the one the tutor speaks, for the rest of the process: its documents and hints
/// (localized_file) and tr(). False when its catalogue cannot be used (no attn.mo found, or no
/// C.UTF-8 locale): tr() then answers in English, the documents still follow `language`.
bool use_language(const std::string& language);

/// The language use_language() set: "en" until it is called.
const std::string& current_language();

/// The folder holding <language>/LC_MESSAGES/attn.mo: beside the running program (the build
/// tree's locale/), else its ../share/locale (an install tree), else the build tree it was built in.
std::string locale_directory();

/// `english` in the current language (itself when the catalogue has no translation).
std::string tr(const char* english);
std::string tr(const std::string& english);

/// tr(english) with {1}, {2}, … replaced by `values`, in whatever order the translation uses them.
std::string trf(const char* english, std::initializer_list<std::string> values);

/// trf() where one English message stands for several translations: `context` (msgctxt in the
/// catalogue) tells them apart, e.g. the gender of what is counted — "{1} passed, {2} failed" is
/// "{1} correctas, {2} fallidas" for a lesson's checks, "{1} casos correctos, {2} fallidos" for an
/// exercise's cases.
std::string trfc(const char* context, const char* english, std::initializer_list<std::string> values);

/// trf() of the singular or the plural form, as the current language forms the plural of `count`
/// (ngettext: Spanish and English use the singular for 1 only; other languages differ). Both forms
/// carry the same {n} placeholders, and `count` is not one of them: pass it in `values` when shown.
///   trn("over {1} value", "over {1} values", n, {std::to_string(n)})
std::string trn(const char* singular, const char* plural, unsigned long count, std::initializer_list<std::string> values);

/// The file in the current language beside `path`: for "es", hints.md → hints.es.md (when it
/// exists; else `path` itself).
std::string localized_file(const std::string& path);

}  // namespace attn::tutor
