# attn_embed_assets(target NAME file NAME file …): compiles each file into `target` as the char
# array attn::assets::NAME (and NAME_size), regenerated whenever the file changes. The generated
# sources live in the build folder; nothing is written into the source tree.
set(ATTN_EMBED_ASSET_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/embed_asset.cmake")

function(attn_embed_assets target)
  set(arguments ${ARGN})
  while(arguments)
    list(POP_FRONT arguments name file)
    get_filename_component(input "${file}" ABSOLUTE)
    set(output "${CMAKE_CURRENT_BINARY_DIR}/assets/${name}.cpp")
    add_custom_command(
      OUTPUT "${output}"
      COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DNAME=${name}
              -P ${ATTN_EMBED_ASSET_SCRIPT}
      DEPENDS "${input}" "${ATTN_EMBED_ASSET_SCRIPT}"
      COMMENT "Embedding ${file}"
      VERBATIM)
    target_sources(${target} PRIVATE "${output}")
  endwhile()
endfunction()
