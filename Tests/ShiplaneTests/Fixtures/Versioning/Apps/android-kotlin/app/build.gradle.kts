plugins {
    alias(libs.plugins.android.application)
}

android {
    namespace = "com.example.tracker"
    compileSdk = 34

    defaultConfig {
        applicationId = "com.example.tracker"
        minSdk = 26
        targetSdk = 34
        versionCode = (project.property("VERSION_CODE") as String).toInt()
        versionName = libs.versions.app.version.get()
    }

    flavorDimensions += "tier"
    productFlavors {
        create("free") {
            dimension = "tier"
            applicationIdSuffix = ".free"
        }
        create("pro") {
            dimension = "tier"
            versionName = "3.1"
        }
    }
}

dependencies {
    implementation(libs.androidx.core.ktx)
}
