package io.activityservice.detector.esper.internal;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a class file refers to, read from its constant pool (JVM specification 4.4): the classes it
 * names (in class entries and in the descriptors of the fields and methods it uses), the methods it
 * calls, and whether it uses method handles or dynamic constants. Enough to check generated code
 * without a bytecode library.
 *
 * @param classes binary names ({@code java.lang.Runtime}) of the classes named
 * @param methods methods called, as {@code owner.name} with the owner's binary name
 * @param dynamic whether the pool holds method handles, method types or (invoke)dynamic constants
 */
record ClassFileReferences(Set<String> classes, Set<String> methods, boolean dynamic) {

  /** Parses the constant pool of a class file. */
  static ClassFileReferences of(byte[] classFile) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile))) {
      if (in.readInt() != 0xCAFEBABE) {
        throw new IllegalArgumentException("not a class file");
      }
      in.readUnsignedShort();
      in.readUnsignedShort();
      int count = in.readUnsignedShort();
      String[] utf8 = new String[count];
      int[] classNameIndex = new int[count];
      int[][] natIndex = new int[count][];
      List<int[]> methodRefs = new ArrayList<>();
      boolean dynamic = false;
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        switch (tag) {
          case 1 -> utf8[i] = in.readUTF();
          case 3, 4 -> in.readInt();
          case 5, 6 -> {
            in.readLong();
            i++;
          }
          case 7 -> classNameIndex[i] = in.readUnsignedShort();
          case 8, 16, 19, 20 -> {
            in.readUnsignedShort();
            dynamic |= tag == 16;
          }
          case 9 -> {
            in.readUnsignedShort();
            in.readUnsignedShort();
          }
          case 10, 11 -> methodRefs.add(new int[] {in.readUnsignedShort(), in.readUnsignedShort()});
          case 12 -> natIndex[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
          case 15 -> {
            in.readUnsignedByte();
            in.readUnsignedShort();
            dynamic = true;
          }
          case 17, 18 -> {
            in.readUnsignedShort();
            in.readUnsignedShort();
            dynamic = true;
          }
          default ->
              throw new IllegalArgumentException("unknown constant pool tag " + tag + " at " + i);
        }
      }
      Set<String> classes = new HashSet<>();
      for (int i = 1; i < count; i++) {
        if (classNameIndex[i] != 0) {
          addType(utf8[classNameIndex[i]], classes);
        }
        if (natIndex[i] != null) {
          addDescriptorTypes(utf8[natIndex[i][1]], classes);
        }
      }
      Set<String> methods = new HashSet<>();
      for (int[] ref : methodRefs) {
        String owner = binary(utf8[classNameIndex[ref[0]]]);
        methods.add(owner + "." + utf8[natIndex[ref[1]][0]]);
      }
      return new ClassFileReferences(classes, methods, dynamic);
    } catch (IOException e) {
      throw new IllegalArgumentException("unreadable class file: " + e.getMessage(), e);
    }
  }

  /**
   * A class entry: an internal name ({@code java/lang/Object}) or an array descriptor ({@code
   * [Ljava/...;}).
   */
  private static void addType(String name, Set<String> out) {
    if (name.startsWith("[")) {
      addDescriptorTypes(name, out);
    } else {
      out.add(binary(name));
    }
  }

  /** Every {@code L...;} type in a field or method descriptor. */
  private static void addDescriptorTypes(String descriptor, Set<String> out) {
    for (int i = descriptor.indexOf('L'); i >= 0; i = descriptor.indexOf('L', i + 1)) {
      int end = descriptor.indexOf(';', i);
      if (end < 0) {
        return;
      }
      out.add(binary(descriptor.substring(i + 1, end)));
      i = end;
    }
  }

  private static String binary(String internalName) {
    return internalName.replace('/', '.');
  }
}
