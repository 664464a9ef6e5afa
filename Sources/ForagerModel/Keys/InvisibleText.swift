/// Whether `scalar` shows nothing by itself: white space (any Unicode White_Space, the no-break
/// and ideographic spaces included), a control or a format character (a zero-width space, a
/// byte-order mark).
func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
  scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    || scalar.properties.generalCategory == .format
}

/// Whether `text` shows nothing a person could read. Such a name would fold to an empty or
/// invisible key, so no record may be named by it.
func isBlank(_ text: String) -> Bool {
  text.unicodeScalars.allSatisfy(isInvisible)
}

/// `text` quoted for a message, every invisible scalar but the plain space written as
/// `\u{…}`, so that a person sees what was refused.
func quotedForMessage(_ text: String) -> String {
  var result = "\""
  for scalar in text.unicodeScalars {
    if scalar == "\"" || scalar == "\\" {
      result += "\\\(scalar)"
    } else if scalar != " " && isInvisible(scalar) {
      result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    } else {
      result.unicodeScalars.append(scalar)
    }
  }
  return result + "\""
}
