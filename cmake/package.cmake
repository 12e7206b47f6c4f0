# cmake/package.cmake — attn::io, attn::attn and attn::fast as an installed CMake package.

# The library as a CMake package: `cmake --install build --prefix P` installs the headers, the
# libraries and P/lib/cmake/attn/attnConfig.cmake, so that another project can write
# find_package(attn REQUIRED) and link attn::attn (and attn::fast, attn::io). tests/package_consumer/run.sh
# installs to a temporary prefix and builds a tiny consumer against it (.ci/run).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set_target_properties(attn_fast PROPERTIES EXPORT_NAME fast)
set_target_properties(attn_io PROPERTIES EXPORT_NAME io)
install(TARGETS attn_io attn attn_fast EXPORT attnTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/attn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT attnTargets NAMESPACE attn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/attn)
configure_package_config_file(cmake/attnConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/attnConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/attn)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/attnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/attnConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/attnConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/attn)
