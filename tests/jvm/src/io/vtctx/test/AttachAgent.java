package io.vtctx.test;

import com.sun.tools.attach.VirtualMachine;

/** Loads a JVMTI agent into a running JVM. Usage: AttachAgent <pid> <agent path> <options> */
public final class AttachAgent {
  public static void main(String[] args) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(args[0]);
    try {
      vm.loadAgentPath(args[1], args[2]);
    } finally {
      vm.detach();
    }
    System.out.println("attached " + args[1] + "=" + args[2] + " to " + args[0]);
  }
}
