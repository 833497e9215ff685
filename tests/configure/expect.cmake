# expect(NAME OUTPUT TEXT): fails the script (SEND_ERROR) unless OUTPUT, what a configure printed, says TEXT.
# Runs of whitespace count as one space: CMake wraps the long lines of the errors it prints.
function(expect name output text)
  string(REGEX REPLACE "[ \t\r\n]+" " " folded "${output}")
  string(FIND "${folded}" "${text}" at)
  if(at EQUAL -1)
    message(SEND_ERROR "${name}: the configure output does not say '${text}':\n${output}")
  else()
    message(STATUS "${name}: says '${text}'")
  endif()
endfunction()
