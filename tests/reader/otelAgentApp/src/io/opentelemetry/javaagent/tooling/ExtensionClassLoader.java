package io.opentelemetry.javaagent.tooling;

import java.net.URL;
import java.net.URLClassLoader;

/**
 * A forgery: an application's class loader named like the OpenTelemetry Java agent's extension
 * class loader, which loads a copy of the vtctx shim. The agent must not take the name for the
 * OpenTelemetry Java agent's extensions (reader.jvm_otel_agent's "webapp" command).
 */
public class ExtensionClassLoader extends URLClassLoader {
  public ExtensionClassLoader(URL[] urls, ClassLoader parent) {
    super(urls, parent);
  }
}
