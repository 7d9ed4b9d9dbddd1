rootProject.name = "Tracker"
include(":app")
