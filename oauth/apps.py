from django.apps import AppConfig


class OauthConfig(AppConfig):
    name = "oauth"
    verbose_name = "OAuth apps and personal tokens"
    default_auto_field = "django.db.models.BigAutoField"
