"""liuren-logic: 大六壬 as a Datalog knowledge base whose every conclusion explains itself."""
