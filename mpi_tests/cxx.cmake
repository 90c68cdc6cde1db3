# C++ API tests (<ushmem/ushmem.hpp>): C++ programs, registered like the C ones
# (mpi.cxx_<name>.<config>.np<N>, label "cpp" as well).
foreach(prog cxx_api cxx_unwind)
  add_executable(mpi_${prog} ${prog}.cpp)
  set_target_properties(mpi_${prog} PROPERTIES OUTPUT_NAME ${prog})
  target_include_directories(mpi_${prog} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(mpi_${prog} PRIVATE ushmem)
  ushmem_mpi_test(${prog} LABELS cpp)
endforeach()
