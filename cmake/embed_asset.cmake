# cmake -DINPUT=file -DOUTPUT=file.cpp -DNAME=symbol -P embed_asset.cmake
#
# Writes a C++ source that holds INPUT's bytes as a char array, so that a page's CSS and
# JavaScript stay files a reader can open and an editor can check, and the program still needs
# nothing beside itself at run time. Run at build time by attn_embed_assets (embed_assets.cmake):
# editing the asset rebuilds the array. No xxd, no network: file(READ … HEX) and string(REGEX).
#
#   namespace attn::assets { extern const char NAME[]; extern const std::size_t NAME_size; }
#   std::string_view text(attn::assets::NAME, attn::assets::NAME_size);
foreach(variable INPUT OUTPUT NAME)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "embed_asset.cmake: -D${variable}= is missing")
  endif()
endforeach()
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
# Every byte as 0xNN, then line breaks after each 16 of them.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUTPUT}"
  "// Generated at build time from ${NAME} (cmake/embed_asset.cmake). Do not edit: edit the asset.\n"
  "#include <cstddef>\n\n"
  "namespace attn::assets {\n\n"
  "extern const char ${NAME}[] = {\n    ${bytes}0x00};\n"
  "extern const std::size_t ${NAME}_size = ${size};\n\n"
  "}  // namespace attn::assets\n")
