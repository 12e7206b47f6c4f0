# cmake/translations.cmake — the compiled catalogues of the tutor's languages. Included by
# CMakeLists.txt when the CLI or the tests are built.

# Translations (GNU gettext; src/tutor/language.hpp): po/es.po, the Spanish catalogue of the
# tutor's own words, compiled by msgfmt into <build>/locale/es/LC_MESSAGES/attn.mo, where `attn`
# finds it beside itself (an install finds it in ../share/locale). English is the source language:
# without the catalogue the tutor speaks English. Debian package: gettext (./tutor installs it).
# tests/po_catalogue.sh checks that every marked string is in the catalogue and translated.
find_package(Gettext REQUIRED)  # GETTEXT_MSGFMT_EXECUTABLE
set(ATTN_LOCALE_DIR ${CMAKE_BINARY_DIR}/locale)
set(ATTN_TRANSLATIONS)
foreach(language es)
  set(catalogue ${ATTN_LOCALE_DIR}/${language}/LC_MESSAGES/attn.mo)
  add_custom_command(OUTPUT ${catalogue}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ATTN_LOCALE_DIR}/${language}/LC_MESSAGES
    COMMAND ${GETTEXT_MSGFMT_EXECUTABLE} --check -o ${catalogue} ${CMAKE_CURRENT_SOURCE_DIR}/po/${language}.po
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/po/${language}.po
    COMMENT "msgfmt po/${language}.po")
  list(APPEND ATTN_TRANSLATIONS ${catalogue})
  install(FILES ${catalogue} DESTINATION share/locale/${language}/LC_MESSAGES OPTIONAL)
endforeach()
add_custom_target(attn_translations ALL DEPENDS ${ATTN_TRANSLATIONS})
# The build tree's catalogues, for a program that is neither beside them nor installed.
target_compile_definitions(attn_tutor PRIVATE ATTN_BUILD_LOCALE_DIR="${ATTN_LOCALE_DIR}")
if(ATTN_BUILD_CLI)
  add_dependencies(attn_cli attn_translations)
endif()
if(ATTN_BUILD_TESTS)
  add_dependencies(attn_tests attn_translations)
  find_program(ATTN_XGETTEXT xgettext)
  if(ATTN_XGETTEXT)
    add_test(NAME "translations - every marked string is in po/es.po, translated"
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/po_catalogue.sh ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
endif()
