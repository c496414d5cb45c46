#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "vigil::vigil" for configuration "Release"
set_property(TARGET vigil::vigil APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(vigil::vigil PROPERTIES
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libvigil.so.0.1.0"
  IMPORTED_SONAME_RELEASE "libvigil.so.0"
  )

list(APPEND _cmake_import_check_targets vigil::vigil )
list(APPEND _cmake_import_check_files_for_vigil::vigil "${_IMPORT_PREFIX}/lib/libvigil.so.0.1.0" )

# Import target "vigil::vigil_static" for configuration "Release"
set_property(TARGET vigil::vigil_static APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(vigil::vigil_static PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "C"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libvigil.a"
  )

list(APPEND _cmake_import_check_targets vigil::vigil_static )
list(APPEND _cmake_import_check_files_for_vigil::vigil_static "${_IMPORT_PREFIX}/lib/libvigil.a" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
