"""A challenge's `answered_at` is `ended_at`, as a seek's: one name for when either stopped waiting
(a rename, so the times already recorded are kept)."""

from django.db import migrations, models

ENDED_AT = "When it stopped waiting: matched or accepted, declined, cancelled or expired."


class Migration(migrations.Migration):
    dependencies = [
        ("lobby", "0002_chat_append_only"),
    ]

    operations = [
        migrations.RenameField(model_name="challenge", old_name="answered_at", new_name="ended_at"),
        migrations.AlterField(
            model_name="challenge",
            name="ended_at",
            field=models.DateTimeField(blank=True, help_text=ENDED_AT, null=True),
        ),
        migrations.AlterField(
            model_name="seek",
            name="ended_at",
            field=models.DateTimeField(blank=True, help_text=ENDED_AT, null=True),
        ),
    ]
